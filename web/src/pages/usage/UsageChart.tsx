import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { formatDay, formatMoney } from '../../format';

interface UsageChartProps {
  /** `YYYY-MM-DD` days (a time axis) or group names (bars). */
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
    const xs = days ? labels.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000) : labels.map((_, i) => i);
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
        scales: { x: { time: days, ...(days ? {} : { range: [-0.5, labels.length - 0.5] }) } },
        axes: [
          {
            stroke: ink,
            grid: { stroke: grid },
            ...(days
              ? { values: (_u: uPlot, ticks: number[]) => ticks.map((t) => formatDay(new Date(t * 1000).toISOString().slice(0, 10), locale)) }
              : { values: (_u: uPlot, ticks: number[]) => ticks.map((t) => (Number.isInteger(t) ? (labels[t] ?? '') : '')), splits: () => labels.map((_, i) => i) }),
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
            ...(days && labels.length > 1 ? {} : { paths: uPlot.paths.bars!({ size: [0.6, 64] }), points: { show: false } }),
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
