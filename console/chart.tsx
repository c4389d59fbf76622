// A time-series chart: uPlot (small, fast, canvas) in a Preact component. One x axis of seconds
// (epoch), one line per series (a missing second is bridged: members sample on their own clocks,
// so a second can fall between two samples); the chart follows its container's width and is redrawn in
// place when the data changes (no new chart per poll).

import uPlot from 'uplot';
import { useEffect, useRef } from 'preact/hooks';

export interface ChartProps {
  readonly title: string;
  /** Formats an axis value (bytes, ms, ...). */
  readonly format: (v: number) => string;
  /** Epoch seconds. */
  readonly x: readonly number[];
  readonly series: readonly { readonly label: string; readonly values: readonly (number | null)[] }[];
  readonly height?: number;
}

const COLORS = ['#1d5fd1', '#d1461d', '#17803d', '#8e3ac1', '#b38600', '#0f8b8d', '#c2185b', '#5d4037'];

export function TimeChart(props: ChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | undefined>(undefined);
  const shape = props.series.map((s) => s.label).join('\u0000');
  const data = (): uPlot.AlignedData => [props.x as number[], ...props.series.map((s) => s.values as (number | null)[])];

  useEffect(() => {
    const el = box.current;
    if (el === null) return;
    const opts: uPlot.Options = {
      width: Math.max(200, el.clientWidth),
      height: props.height ?? 180,
      legend: { show: true },
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: true } },
      axes: [{ stroke: 'currentColor', grid: { stroke: 'rgba(128,128,128,0.2)' } }, { stroke: 'currentColor', grid: { stroke: 'rgba(128,128,128,0.2)' }, size: 70, values: (_u, vals) => vals.map((v) => props.format(v)) }],
      series: [{}, ...props.series.map((s, i) => ({ label: s.label, stroke: COLORS[i % COLORS.length]!, width: 1.5, spanGaps: true, points: { show: false }, value: (_u: uPlot, v: number | null) => (v === null ? '—' : props.format(v)) }))],
    };
    const u = new uPlot(opts, data(), el);
    plot.current = u;
    const ro = new ResizeObserver(() => u.setSize({ width: Math.max(200, el.clientWidth), height: props.height ?? 180 }));
    ro.observe(el);
    return () => {
      ro.disconnect();
      u.destroy();
      plot.current = undefined;
    };
    // A new set of lines needs a new chart; new values only a redraw (below).
  }, [shape]);

  useEffect(() => {
    plot.current?.setData(data());
  });

  return (
    <figure class="chart-box">
      <figcaption>{props.title}</figcaption>
      <div ref={box} />
    </figure>
  );
}
