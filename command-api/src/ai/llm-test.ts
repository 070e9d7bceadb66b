import { Router, type Request } from 'express';
import multer from 'multer';
import { z } from 'zod';
import {
  ConflictError,
  ForbiddenError,
  PayloadTooLargeError,
  SERVER_MAX_FILE_SIZE,
  sniffFile,
  ValidationError,
  type CompanySettings,
  type LanguageModel,
} from '@paperlink/domain';
import { ctxOf, requireCompany } from '../http/context';
import { unreadableUpload } from '../http/uploads';
import { modelChoice } from '../settings/routes';

export interface LlmTestDeps {
  llm: LanguageModel;
  settings(companyId: string): Promise<CompanySettings>;
  /** The company's category names and ids (master data). */
  categories(companyId: string): Promise<Array<{ id: string; name: string }>>;
  /** Reads a file as receipts are read: OCR in its worker pool (PDF text layer first). */
  ocr(bytes: Buffer): Promise<{ text: string; source: string; ocrConfidence: number; ms: number; fields: unknown }>;
}

export const TestCategorizationBody = z.object({
  description: z.string({ error: 'description is required' }).trim().min(1, 'description is required').max(1000),
  amount: z.coerce.number({ error: 'amount must be a number' }).refine(Number.isFinite, 'amount must be a number').optional().default(0),
  companyId: z.string().max(100).optional(),
});

const OCR_FIELDS = ['receipt', 'file'];

/**
 * The /llm-test page's calls (spec section 7, AI): health of the language-model chain, a test
 * categorisation against the company's own categories, a test OCR of one file. Members of the
 * company only; nothing here is written.
 */
export function llmTestRouter(deps: LlmTestDeps): Router {
  const router = Router();
  const member = requireCompany();

  router.get('/ai/llm/health', member, async (_req, res) => {
    const s = await deps.settings(ctxOf(res).companyId!);
    const health = await deps.llm.health({ models: modelChoice(s) });
    res.json({ ...health, model: s.llmModel, fallbackModel: s.llmFallbackModel, aiEnabled: s.aiEnabled });
  });

  router.post('/ai/llm/test-categorization', member, async (req, res) => {
    const ctx = ctxOf(res);
    const b = TestCategorizationBody.parse(req.body ?? {});
    if (b.companyId && b.companyId !== ctx.companyId) throw new ForbiddenError('companyId must be the company of the X-Company-ID header', 'company_mismatch');
    const s = await deps.settings(ctx.companyId!);
    if (!s.aiEnabled) throw new ConflictError('The AI features are switched off in this company\'s settings.', 'ai_disabled');
    const categories = await deps.categories(ctx.companyId!);
    const controller = new AbortController();
    // The caller went away before the answer: stop the chain (no fallback calls for nobody).
    res.on('close', () => {
      if (!res.writableEnded) controller.abort();
    });
    const answer = await deps.llm.categorize(
      { description: b.description, amount: b.amount, categories: categories.map((c) => c.name), companyId: ctx.companyId! },
      { models: modelChoice(s), signal: controller.signal },
    );
    const match = categories.find((c) => c.name === answer.category);
    res.json({
      predictedCategory: answer.category,
      predictedCategoryId: match?.id ?? null,
      confidence: answer.confidence,
      model: answer.model,
      source: answer.source,
      attempts: answer.attempts,
      categoriesConsidered: categories.length,
    });
  });

  router.post('/ai/llm/test-ocr', member, async (req, res, next) => {
    const s = await deps.settings(ctxOf(res).companyId!);
    const limit = Math.min(s.maxFileSize, SERVER_MAX_FILE_SIZE);
    const upload = multer({ storage: multer.memoryStorage(), limits: { fileSize: limit, files: 1, fields: 10 } });
    upload.fields(OCR_FIELDS.map((name) => ({ name, maxCount: 1 })))(req, res, (err: unknown) => {
      if (err instanceof multer.MulterError) {
        next(err.code === 'LIMIT_FILE_SIZE'
          ? new PayloadTooLargeError(`The file is larger than this company's limit of ${(limit / 1024 / 1024).toFixed(1)} MB.`, 'too_large')
          : new ValidationError('Send one file in the receipt field.', [{ field: 'receipt', message: 'Send one file' }], 'bad_upload'));
      } else next(unreadableUpload(err));
    });
  }, async (req: Request, res) => {
    const files = (req.files ?? {}) as Record<string, Express.Multer.File[]>;
    const file = OCR_FIELDS.map((f) => files[f]?.[0]).find(Boolean);
    if (!file) throw new ValidationError('Choose a file (JPG, PNG or PDF).', [{ field: 'receipt', message: 'A file is required' }], 'file_required');
    const sniffed = sniffFile(file.buffer);
    const reading = await deps.ocr(file.buffer);
    res.json({
      ocrText: reading.text,
      receiptData: { filename: file.originalname.slice(0, 255), fileSize: file.size, fileType: sniffed.mime },
      source: reading.source,
      ocrConfidence: reading.ocrConfidence,
      fields: reading.fields,
      ms: reading.ms,
    });
  });

  return router;
}
