import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { formatMoney } from '../../format';

interface UsageChartProps {
  /** `YYYY-MM-DD` days or group names: one bar each. */
  labels: string[];
  /** Spend per label, integer micro-USD: plotted as is, ticks formatted exactly. */
  values: number[];
  days: boolean;
  locale: string;
  title: string;
}

/** Spend as a chart (uPlot, canvas). The table beside it holds the same numbers for screen readers. */
export function UsageChart({ labels, values, days, locale, title }: UsageChartProps) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = host.current;
    if (!el) return;
    // Bars over categories, days included: a time axis ranges oddly over one or two days.
    const xs = labels.map((_, i) => i);
    const names = days
      ? labels.map((d) =>
          new Intl.DateTimeFormat(locale, { month: 'short', day: 'numeric', timeZone: 'UTC' }).format(
            new Date(`${d}T00:00:00Z`),
          ),
        )
      : labels;
    const every = Math.max(1, Math.ceil(labels.length / Math.max(2, Math.floor(el.clientWidth / 90)))); // labels that fit
    const style = getComputedStyle(el);
    const ink = style.getPropertyValue('--ink').trim() || '#222';
    const accent = style.getPropertyValue('--accent').trim() || '#2563eb';
    const grid = style.getPropertyValue('--line').trim() || '#ddd';
    const money = (v: number) => formatMoney(Math.round(v), locale);
    const chart = new uPlot(
      {
        width: Math.max(280, el.clientWidth),
        height: 240,
        legend: { show: false },
        cursor: { show: true, drag: { x: false, y: false } },
        scales: { x: { time: false, range: [-0.5, labels.length - 0.5] } },
        axes: [
          {
            stroke: ink,
            grid: { show: false },
            splits: () => xs.filter((i) => i % every === 0),
            values: (_u: uPlot, ticks: number[]) => ticks.map((t) => names[t] ?? ''),
          },
          { stroke: ink, grid: { stroke: grid }, size: 80, values: (_u: uPlot, ticks: number[]) => ticks.map(money) },
        ],
        series: [
          {},
          {
            label: 'Spend',
            stroke: accent,
            fill: `${accent}55`,
            width: 2,
            paths: uPlot.paths.bars!({ size: [0.6, 64] }),
            points: { show: false },
          },
        ],
      },
      [xs, values],
      el,
    );
    const resize = new ResizeObserver(() => chart.setSize({ width: Math.max(280, el.clientWidth), height: 240 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [labels, values, days, locale]);
  return <div class="chart" ref={host} role="img" aria-label={title} />;
}
