import { useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { api } from '../lib/api-client';
import { useQueryScope } from '../lib/query-scope';

/** A receipt's small JPEG (GET /receipts/:id/thumbnail); shared by every screen where a match is decided. */
export const thumbnailKey = (companyId: string | null, userId: string | null, receiptId: string) => ['receipt-thumbnail', companyId, userId, receiptId] as const;

async function fetchThumbnail(receiptId: string): Promise<Blob> {
  return (await api.get(`/receipts/${encodeURIComponent(receiptId)}/thumbnail`, { responseType: 'blob' })).data as Blob;
}

/** An object URL for `blob`, released when the blob changes or the component leaves. */
function useObjectUrl(blob: Blob | undefined): string | null {
  const url = useMemo(() => (blob ? URL.createObjectURL(blob) : null), [blob]);
  useEffect(() => () => {
    if (url) URL.revokeObjectURL(url);
  }, [url]);
  return url;
}

/**
 * The receipt's image beside the card line: its thumbnail, a button that shows it larger (and
 * smaller again). The bytes of a stored thumbnail do not change, so they are read once a session.
 */
export function ReceiptThumbnail({ receiptId, name }: { receiptId: string; name: string | null }) {
  const { companyId, userId } = useQueryScope();
  const q = useQuery({ queryKey: thumbnailKey(companyId, userId, receiptId), queryFn: () => fetchThumbnail(receiptId), staleTime: Infinity, retry: 1 });
  const url = useObjectUrl(q.data);
  const [large, setLarge] = useState(false);
  const label = name ?? 'receipt';
  if (q.isError) return <span className="thumb thumb-missing" role="img" aria-label={`No image of ${label}`}>No image</span>;
  if (!url) return <span className="thumb thumb-loading" role="img" aria-label={`Loading the image of ${label}`} />;
  return (
    <button type="button" className={`thumb-button${large ? ' large' : ''}`} aria-pressed={large} aria-label={`${large ? 'Smaller' : 'Larger'} image of ${label}`} onClick={() => setLarge((l) => !l)}>
      <img className="thumb" src={url} alt={`Receipt ${label}`} data-receipt-id={receiptId} />
    </button>
  );
}
