import type { ComponentChildren } from 'preact';

/**
 * The frame a table scrolls in sideways at a phone's width, so the page itself never does. It
 * takes the focus, so a keyboard scrolls it too (axe: scrollable-region-focusable), and is a
 * region named `label` (the table's caption, in short).
 */
export function TableFrame({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard.
    <section class="table-wrap" aria-label={label} tabIndex={0}>
      {children}
    </section>
  );
}
