import { useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { errorMessage } from '../../../lib/api-client';
import { Field } from '../../../components/Field';
import { useSession } from '../../../lib/session';
import { useCanWrite } from '../../../lib/roles';
import { aiConfidence, llmApi, type CategorizationResult, type Health, type OcrResult } from '../api/llm';
import '../llm-test.css';

function HealthCard() {
  const check = useMutation({ mutationFn: llmApi.health });
  const h: Health | undefined = check.data;
  return (
    <div className="card">
      <div className="row spread">
        <h2>Language Model Health</h2>
        <button type="button" className="btn primary" onClick={() => check.mutate()} disabled={check.isPending}>{check.isPending ? 'Checking...' : 'Check Health'}</button>
      </div>
      {check.error && <div className="form-error" role="alert">{errorMessage(check.error, 'Health check failed')}</div>}
      {h && (
        <dl className="details" aria-label="Health">
          <dt>Status</dt>
          <dd><span className={`badge ${h.status === 'ok' ? 'success' : h.status === 'offline' ? 'warning' : 'danger'}`} data-result="status">{h.status}</span></dd>
          <dt>Hosted API</dt>
          <dd>{h.connected ? 'Connected' : h.keyConfigured === false ? 'No API key configured' : 'Not connected'}{h.error ? ` (${h.error})` : ''}</dd>
          <dt>Order tried</dt>
          <dd data-result="chain">{h.chain.join(' → ')}</dd>
          <dt>AI features</dt>
          <dd>{h.aiEnabled === false ? 'Disabled for this company' : 'Enabled'}</dd>
        </dl>
      )}
    </div>
  );
}

function CategorizationCard() {
  const companyId = useSession((s) => s.currentCompanyId);
  const [description, setDescription] = useState('');
  const [amount, setAmount] = useState('');
  const [error, setError] = useState<string>();
  const run = useMutation({ mutationFn: llmApi.categorize });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const n = amount.trim() === '' ? 0 : Number(amount);
    if (!description.trim()) return setError('Enter a description');
    if (!Number.isFinite(n)) return setError('Enter an amount');
    setError(undefined);
    run.mutate({ description: description.trim(), amount: n, companyId });
  };
  const r: CategorizationResult | undefined = run.data;
  const badge = r ? aiConfidence(r.confidence) : null;
  return (
    <form className="card" onSubmit={submit} noValidate aria-label="Test categorization">
      <h2>Test Categorization</h2>
      <div className="row">
        <Field label="Description" name="description" value={description} onChange={setDescription} error={error} />
        <Field label="Amount" name="amount" type="number" value={amount} onChange={setAmount} />
      </div>
      <button type="submit" className="btn primary" disabled={run.isPending}>{run.isPending ? 'Categorizing...' : 'Categorize'}</button>
      {run.error && <div className="form-error" role="alert">{errorMessage(run.error, 'Categorization failed')}</div>}
      {r && badge && (
        <div className="llm-result" aria-label="Categorization result">
          <p>
            Category: <strong data-result="category">{r.predictedCategory === 'none' ? 'None of the categories' : r.predictedCategory}</strong>{' '}
            <span className={`badge ${badge.tone}`}>{badge.label} {Math.round(r.confidence * 100)}%</span>
          </p>
          <p className="muted">Answered by: {r.model ?? 'no model could answer'} ({r.source}); {r.categoriesConsidered ?? 0} categories considered</p>
          <ol className="llm-attempts">
            {r.attempts.map((a, i) => <li key={i}>{a.model}: {a.outcome}{a.reason ? ` (${a.reason})` : ''}</li>)}
          </ol>
        </div>
      )}
    </form>
  );
}

function OcrCard() {
  const [file, setFile] = useState<File | null>(null);
  const run = useMutation({ mutationFn: llmApi.ocr });
  const r: OcrResult | undefined = run.data;
  return (
    <form className="card" onSubmit={(e) => { e.preventDefault(); if (file) run.mutate(file); }} aria-label="Test OCR">
      <h2>Test OCR</h2>
      <div className="field">
        <label htmlFor="llm-ocr-file">Receipt file (JPG, PNG or PDF)</label>
        <input id="llm-ocr-file" type="file" accept="image/jpeg,image/png,application/pdf" onChange={(e) => setFile(e.target.files?.[0] ?? null)} />
      </div>
      <button type="submit" className="btn primary" disabled={!file || run.isPending}>{run.isPending ? 'Reading...' : 'Run OCR'}</button>
      {run.error && <div className="form-error" role="alert">{errorMessage(run.error, 'OCR failed')}</div>}
      {r && (
        <div className="llm-result" aria-label="OCR result">
          <dl className="details">
            <dt>File</dt>
            <dd data-result="filename">{r.receiptData.filename}</dd>
            <dt>Size</dt>
            <dd>{(r.receiptData.fileSize / 1024).toFixed(1)} KB</dd>
            <dt>Type</dt>
            <dd>{r.receiptData.fileType}</dd>
          </dl>
          <pre className="llm-ocr-text" data-result="ocr-text">{r.ocrText || '(no text found)'}</pre>
        </div>
      )}
    </form>
  );
}

/** /llm-test (spec section 2): language-model health, test categorisation, test OCR. */
export function LlmTestPage() {
  // The tests spend the company's model budget and are refused to auditors; the health check is a read.
  const canWrite = useCanWrite();
  return (
    <section className="page llm-test-page">
      <h1>LLM Test</h1>
      <p className="muted">Developer page: checks the language model and OCR with this company&apos;s settings and categories. Nothing is saved.</p>
      <HealthCard />
      {canWrite ? (
        <>
          <CategorizationCard />
          <OcrCard />
        </>
      ) : <p className="muted" data-testid="llm-tests-read-only">The categorisation and OCR tests are not open to auditors.</p>}
    </section>
  );
}
export default LlmTestPage;
