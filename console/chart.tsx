// A live time-series chart (uPlot) and the rolling sample buffer the live pages feed it. uPlot
// is imported here only, so the pages stay free of its API; a chart is redrawn with setData,
// never rebuilt, when a sample arrives, and resized with its panel.

import 'uplot/dist/uPlot.min.css';
import uPlot from 'uplot';
import { useEffect, useRef } from 'preact/hooks';

/** How far back the live charts reach: a sample a second, the last five minutes. */
export const WINDOW_SAMPLES = 300;

/** One line's samples: x is epoch seconds, shared by every series of a chart. */
export interface Series {
  readonly label: string;
  readonly values: readonly (number | null)[];
}

const COLORS = ['#2f6fde', '#d9822b', '#2e9d5b', '#c23b3b', '#8a55c9', '#1a9aa8', '#7a7a7a'];

/** Appends one sample to rolling columns (keyed by series label), dropping what falls out of the window. */
export function pushSample(prev: Samples, atMs: number, values: Readonly<Record<string, number | null>>): Samples {
  const start = Math.max(0, prev.x.length + 1 - WINDOW_SAMPLES);
  const x = [...prev.x.slice(start), atMs / 1000];
  const series: Record<string, (number | null)[]> = {};
  for (const label of new Set([...Object.keys(prev.series), ...Object.keys(values)])) {
    // A series that appears later is filled with gaps for the samples before it.
    const old = prev.series[label] ?? new Array<number | null>(prev.x.length).fill(null);
    series[label] = [...old.slice(start), values[label] ?? null];
  }
  return { x, series };
}

export interface Samples {
  readonly x: readonly number[];
  readonly series: Readonly<Record<string, readonly (number | null)[]>>;
}

export const NO_SAMPLES: Samples = { x: [], series: {} };

export function Chart(props: { title: string; samples: Samples; unit?: (v: number) => string; height?: number; testId?: string; className?: string; spanGaps?: boolean }) {
  const host = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | undefined>(undefined);
  const labels = Object.keys(props.samples.series);
  const key = labels.join('\u0000');
  useEffect(() => {
    const el = host.current;
    if (el === null) return;
    const fmt = props.unit ?? ((v: number) => String(v));
    const opts: uPlot.Options = {
      width: Math.max(200, el.clientWidth),
      height: props.height ?? 180,
      series: [{}, ...labels.map((label, i) => ({ label, stroke: COLORS[i % COLORS.length]!, width: 1.5, spanGaps: props.spanGaps ?? false, value: (_u: uPlot, v: number | null) => (v === null ? '—' : fmt(v)) }))],
      axes: [{}, { size: 70, values: (_u: uPlot, ticks: number[]) => ticks.map(fmt) }],
      legend: { live: true },
      cursor: { drag: { x: false, y: false } },
    };
    const u = new uPlot(opts, data(props.samples, labels), el);
    plot.current = u;
    const ro = new ResizeObserver(() => u.setSize({ width: Math.max(200, el.clientWidth), height: props.height ?? 180 }));
    ro.observe(el);
    return () => {
      ro.disconnect();
      u.destroy();
      plot.current = undefined;
    };
    // Rebuilt only when the set of lines changes; new samples go through setData below.
  }, [key]);
  useEffect(() => {
    plot.current?.setData(data(props.samples, labels));
  }, [props.samples]);
  return (
    <figure class={props.className ?? 'chart'} data-testid={props.testId} data-points={props.samples.x.length} data-last={JSON.stringify(lastValues(props.samples))}>
      <figcaption>{props.title}</figcaption>
      <div ref={host} />
    </figure>
  );
}

/** Each line's latest value (null for a gap): on the figure for tests and scripts, as the legend shows only the hovered point. */
function lastValues(s: Samples): Record<string, number | null> {
  return Object.fromEntries(Object.entries(s.series).map(([l, v]) => [l, v.at(-1) ?? null]));
}

function data(s: Samples, labels: readonly string[]): uPlot.AlignedData {
  return [s.x as number[], ...labels.map((l) => (s.series[l] ?? []) as (number | null)[])] as uPlot.AlignedData;
}

/**
 * A chart of columns sampled elsewhere (the Metrics page's metrics history): one x of epoch
 * seconds and a line per series. A missing second is bridged, since members sample on their own
 * clocks and a second can fall between two samples.
 */
export function TimeChart(props: { title: string; format: (v: number) => string; x: readonly number[]; series: readonly Series[]; height?: number }) {
  const samples: Samples = { x: props.x, series: Object.fromEntries(props.series.map((s) => [s.label, s.values])) };
  return <Chart title={props.title} samples={samples} unit={props.format} height={props.height} className="chart-box" spanGaps />;
}
