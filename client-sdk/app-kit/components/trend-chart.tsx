import './trend-chart.css';
import { READING_RANGES, type ReadingRange } from '../format.js';

/**
 * A reading over time as a small SVG line chart, with its range shaded (the organization's for the
 * customer's water when the screen knows them, the default ranges otherwise), so a drift out of
 * balance shows at a glance. One chart per reading: their scales differ by orders of magnitude.
 */
export interface TrendPoint {
  at: string;
  value: number;
}

const WIDTH = 420;
const HEIGHT = 110;
const PAD = { left: 40, right: 10, top: 10, bottom: 22 };

export function TrendChart({ field, points, ranges = READING_RANGES }: { field: 'freeChlorine' | 'ph' | 'totalAlkalinity'; points: TrendPoint[]; ranges?: Partial<Record<string, ReadingRange>> }) {
  const range = ranges[field] ?? READING_RANGES[field]!;
  if (points.length === 0) return null;
  const values = points.map((p) => p.value);
  const low = Math.min(range.min, ...values);
  const high = Math.max(range.max, ...values);
  const span = high - low || 1;
  const times = points.map((p) => Date.parse(p.at));
  const first = Math.min(...times);
  const last = Math.max(...times);
  const x = (t: number) => PAD.left + ((t - first) / (last - first || 1)) * (WIDTH - PAD.left - PAD.right);
  const y = (v: number) => PAD.top + (1 - (v - low) / span) * (HEIGHT - PAD.top - PAD.bottom);
  const line = points.map((p, i) => `${i ? 'L' : 'M'}${x(times[i]!).toFixed(1)},${y(p.value).toFixed(1)}`).join(' ');
  const latest = points[points.length - 1]!;
  return (
    <figure className="trend">
      <figcaption>
        {range.label} {range.unit && `(${range.unit})`}: latest {latest.value}, range {range.min}–{range.max}
      </figcaption>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={`${range.label} over ${points.length} visits`}>
        <rect x={PAD.left} width={WIDTH - PAD.left - PAD.right} y={y(range.max)} height={y(range.min) - y(range.max)} className="band" />
        <text x={PAD.left - 4} y={y(high) + 4} className="axis" textAnchor="end">
          {round(high)}
        </text>
        <text x={PAD.left - 4} y={y(low)} className="axis" textAnchor="end">
          {round(low)}
        </text>
        <text x={PAD.left} y={HEIGHT - 6} className="axis">
          {new Date(first).toLocaleDateString()}
        </text>
        <text x={WIDTH - PAD.right} y={HEIGHT - 6} className="axis" textAnchor="end">
          {new Date(last).toLocaleDateString()}
        </text>
        <path d={line} className="line" />
        {points.map((p, i) => (
          <circle key={i} cx={x(times[i]!)} cy={y(p.value)} r={3} className={p.value < range.min || p.value > range.max ? 'point out' : 'point'}>
            <title>
              {new Date(p.at).toLocaleDateString()}: {p.value}
            </title>
          </circle>
        ))}
      </svg>
    </figure>
  );
}

const round = (n: number) => Math.round(n * 10) / 10;
