import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from 'recharts';
import { formatUsd } from '../../../../lib/format';
import type { MatchRatePoint, SpendingPoint } from '../../metrics';

// Recharts lives in this module alone, which the dashboard loads lazily (its own chunk, outside
// the first screen's JavaScript). Each chart is one tab stop; recharts' accessibility layer moves
// the tooltip through the points with the arrow keys. No animation: the figures show at once
// (and nobody who asked for reduced motion gets any).

const HEIGHT = 260;
const size = { width: '100%', height: HEIGHT } as const;
const usd = (v: unknown) => formatUsd(Number(v));
const compactUsd = (v: number) => (Math.abs(v) >= 1000 ? `$${Math.round(v / 1000)}k` : `$${Math.round(v)}`);

export function SpendingOverTimeChart({ points, label }: { points: SpendingPoint[]; label: string }) {
  return (
    <BarChart responsive style={size} data={points} title={label} desc={label} tabIndex={0} margin={{ top: 8, right: 16, bottom: 0, left: 8 }}>
      <CartesianGrid strokeDasharray="3 3" vertical={false} />
      <XAxis dataKey="period" />
      <YAxis tickFormatter={compactUsd} width={60} />
      <Tooltip formatter={usd} />
      <Legend />
      <Bar dataKey="expenses" name="Expenses" fill="#2458d3" isAnimationActive={false} />
      <Bar dataKey="matched" name="Matched" fill="#1e7d4f" isAnimationActive={false} />
    </BarChart>
  );
}

export function SpendingByCategoryChart({ rows, label }: { rows: Array<{ category: string; amount: number }>; label: string }) {
  return (
    <BarChart responsive style={{ width: '100%', height: Math.max(HEIGHT, rows.length * 32 + 40) }} data={rows} layout="vertical" title={label} desc={label} tabIndex={0} margin={{ top: 8, right: 16, bottom: 0, left: 8 }}>
      <CartesianGrid strokeDasharray="3 3" />
      <XAxis type="number" tickFormatter={compactUsd} />
      <YAxis type="category" dataKey="category" width={130} />
      <Tooltip formatter={usd} />
      <Bar dataKey="amount" name="Spent" fill="#5b3fd1" isAnimationActive={false} />
    </BarChart>
  );
}

export function MatchRateChart({ points, label }: { points: MatchRatePoint[]; label: string }) {
  return (
    <LineChart responsive style={size} data={points} title={label} desc={label} tabIndex={0} margin={{ top: 8, right: 16, bottom: 0, left: 8 }}>
      <CartesianGrid strokeDasharray="3 3" />
      <XAxis dataKey="period" />
      <YAxis domain={[0, 100]} tickFormatter={(v: number) => `${v}%`} width={48} />
      <Tooltip formatter={(v: unknown) => `${Number(v)}%`} />
      <Line type="monotone" dataKey="matchRate" name="Match rate" stroke="#1e7d4f" strokeWidth={2} dot={{ r: 4 }} isAnimationActive={false} />
    </LineChart>
  );
}
