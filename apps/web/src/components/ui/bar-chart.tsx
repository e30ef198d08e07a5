import { useCallback, useState } from 'react';
import { cn } from '@/lib/utils';

export interface BarDatum {
  label: string;
  value: number;
}

export interface BarChartProps {
  data: BarDatum[];
  /** Accessible name of the chart and of its data table. */
  title: string;
  /** Formats values on the axis, in bar tooltips and in the data table. */
  valueLabel?: (value: number) => string;
  /** Height in CSS pixels; the width follows the container. */
  height?: number;
  /** Column headers of the screen-reader table. */
  labelHeader?: string;
  valueHeader?: string;
  className?: string;
}

const DEFAULT_WIDTH = 640;
const MARGIN = { top: 10, right: 16, bottom: 26 } as const;
const FONT_SIZE = 11;
/** Horizontal room one x label needs ("22/11" and its gap), in pixels. */
const LABEL_SLOT = 52;
const MAX_X_LABELS = 8;

const frenchNumber = new Intl.NumberFormat('fr-FR', { maximumFractionDigits: 2 });
const defaultValueLabel = (value: number) => frenchNumber.format(value);

/**
 * A "nice" y scale from 0: 3 or 4 equal steps of 1, 2 or 5 × 10^k covering the largest value.
 * All-zero (or empty) data still gets a scale, so nothing divides by zero.
 */
export function niceScale(maxValue: number, integerSteps = true): { top: number; ticks: number[] } {
  const max = Number.isFinite(maxValue) && maxValue > 0 ? maxValue : 0;
  let step: number;
  if (max === 0) {
    step = 1;
  } else {
    const target = max / 4;
    const magnitude = 10 ** Math.floor(Math.log10(target));
    step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= target) ?? 10 * magnitude;
    if (integerSteps) step = Math.max(1, Math.round(step));
  }
  const intervals = Math.max(3, Math.ceil(max / step - 1e-9));
  const ticks = Array.from({ length: intervals + 1 }, (_, i) => Number((i * step).toPrecision(12)));
  return { top: intervals * step, ticks };
}

/**
 * Indices of the x labels to draw: evenly spaced, at most `maxLabels`, always including the last
 * (most recent) one, so labels never overlap.
 */
export function labelIndices(count: number, maxLabels: number): number[] {
  if (count <= 0) return [];
  const every = Math.max(1, Math.ceil(count / Math.max(1, maxLabels)));
  const indices: number[] = [];
  for (let i = count - 1; i >= 0; i -= every) indices.unshift(i);
  return indices;
}

/** Tracks an element's width; `undefined` until first measured (or without ResizeObserver). */
function useElementWidth(): [(node: HTMLElement | null) => (() => void) | undefined, number | undefined] {
  const [width, setWidth] = useState<number>();
  const ref = useCallback((node: HTMLElement | null) => {
    if (!node || typeof ResizeObserver === 'undefined') return undefined;
    const observer = new ResizeObserver((entries) => {
      const measured = entries[0]?.contentRect.width;
      if (measured && measured > 0) setWidth(Math.round(measured));
    });
    observer.observe(node);
    return () => observer.disconnect();
  }, []);
  return [ref, width];
}

/**
 * Dependency-free SVG bar chart. The SVG fills its container's width (drawn at the measured size,
 * so text keeps its real size); screen readers get the name and a hidden table of the data.
 */
export function BarChart({
  data,
  title,
  valueLabel = defaultValueLabel,
  height = 220,
  labelHeader = 'Date',
  valueHeader = 'Valeur',
  className,
}: BarChartProps) {
  const [containerRef, measuredWidth] = useElementWidth();
  const width = measuredWidth ?? DEFAULT_WIDTH;

  const values = data.map((d) => (Number.isFinite(d.value) ? Math.max(0, d.value) : 0));
  const integerSteps = values.every((v) => Number.isInteger(v));
  const { top, ticks } = niceScale(Math.max(0, ...values), integerSteps);
  const tickLabels = ticks.map(valueLabel);
  const longestTick = Math.max(...tickLabels.map((l) => l.length));
  const marginLeft = Math.max(28, Math.ceil(longestTick * FONT_SIZE * 0.62) + 10);

  const plotWidth = Math.max(1, width - marginLeft - MARGIN.right);
  const plotHeight = Math.max(1, height - MARGIN.top - MARGIN.bottom);
  const baseline = MARGIN.top + plotHeight;
  const slot = data.length > 0 ? plotWidth / data.length : plotWidth;
  const barWidth = Math.max(1, slot * (data.length > 40 ? 0.8 : 0.7));
  const y = (value: number) => baseline - (value / top) * plotHeight;
  const shownLabels = new Set(
    labelIndices(data.length, Math.min(MAX_X_LABELS, Math.max(2, Math.floor(plotWidth / LABEL_SLOT)))),
  );

  return (
    <div ref={containerRef} className={cn('w-full', className)}>
      <svg
        role="img"
        aria-label={title}
        viewBox={`0 0 ${width} ${height}`}
        width="100%"
        height={height}
        preserveAspectRatio="xMidYMid meet"
        className="block overflow-visible"
      >
        <g>
          {ticks.map((tick, i) => (
            <g key={tick}>
              <line
                x1={marginLeft}
                x2={marginLeft + plotWidth}
                y1={y(tick)}
                y2={y(tick)}
                className={i === 0 ? 'stroke-slate-300' : 'stroke-slate-200'}
                strokeDasharray={i === 0 ? undefined : '3 3'}
                shapeRendering="crispEdges"
              />
              <text
                x={marginLeft - 6}
                y={y(tick)}
                dy="0.32em"
                textAnchor="end"
                fontSize={FONT_SIZE}
                className="fill-slate-500"
              >
                {tickLabels[i]}
              </text>
            </g>
          ))}
        </g>
        {data.map((d, i) => {
          const value = values[i] ?? 0;
          const slotX = marginLeft + i * slot;
          const barHeight = baseline - y(value);
          return (
            <g key={`${i}-${d.label}`} className="group">
              <title>{`${d.label} : ${valueLabel(d.value)}`}</title>
              {/* Full-height hit area so even a zero day shows its tooltip on hover. */}
              <rect x={slotX} y={MARGIN.top} width={slot} height={plotHeight} fill="transparent" />
              <rect
                x={slotX + (slot - barWidth) / 2}
                y={baseline - barHeight}
                width={barWidth}
                height={barHeight}
                rx={Math.min(2, barWidth / 4)}
                className="fill-primary transition-opacity group-hover:opacity-75"
              />
              {shownLabels.has(i) ? (
                <text
                  x={slotX + slot / 2}
                  y={baseline + 16}
                  textAnchor="middle"
                  fontSize={FONT_SIZE}
                  className="fill-slate-500"
                >
                  {d.label}
                </text>
              ) : null}
            </g>
          );
        })}
      </svg>
      <table className="sr-only" aria-label={title}>
        <thead>
          <tr>
            <th scope="col">{labelHeader}</th>
            <th scope="col">{valueHeader}</th>
          </tr>
        </thead>
        <tbody>
          {data.map((d, i) => (
            <tr key={`${i}-${d.label}`}>
              <th scope="row">{d.label}</th>
              <td>{valueLabel(d.value)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
