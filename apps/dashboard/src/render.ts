/**
 * DOM rendering of the totals and the top tables. Text goes in through textContent only: keys, tags and
 * externalIds come from event producers and must never be parsed as HTML.
 */
import { OUTCOME_FIELDS } from '@va/contracts/outcomes';
import { OUTCOME_STYLE } from './outcome-style';
import type { Counts, TopRow } from './series';

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: { className?: string; text?: string; data?: Record<string, string> } = {},
  children: Node[] = [],
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (props.className) node.className = props.className;
  if (props.text !== undefined) node.textContent = props.text;
  for (const [name, value] of Object.entries(props.data ?? {})) node.dataset[name] = value;
  node.append(...children);
  return node;
}

const number = new Intl.NumberFormat('en-US');
const percent = new Intl.NumberFormat('en-US', { style: 'percent', maximumFractionDigits: 1 });

/** Totals per outcome, each card also the chart's legend entry (its colour). `data-count` holds the number. */
export function renderTotals(container: HTMLElement, counts: Counts): void {
  const card = (field: string, label: string, value: number, color: string) => {
    const swatch = el('span', { className: 'swatch' });
    swatch.style.background = color;
    return el('div', { className: 'card', data: { outcome: field, count: String(value) } }, [
      swatch,
      el('span', { className: 'label', text: label }),
      el('span', { className: 'value', text: number.format(value) }),
    ]);
  };
  container.replaceChildren(
    card('total', 'Total', counts.total, 'transparent'),
    ...OUTCOME_FIELDS.map((o) => card(o, OUTCOME_STYLE[o].label, counts[o], OUTCOME_STYLE[o].color)),
  );
}

/** A top-N table: label, count and share of the total, with a bar for the share. */
export function renderTop(container: HTMLElement, rows: readonly TopRow[], empty: string): void {
  if (rows.length === 0) {
    container.replaceChildren(el('p', { className: 'empty', text: empty }));
    return;
  }
  const body = rows.map((r) => {
    const bar = el('span', { className: 'share-bar' });
    bar.style.width = `${Math.min(100, r.share * 100).toFixed(1)}%`;
    return el('tr', { data: { label: r.label, count: String(r.total), share: String(r.share) } }, [
      el('td', { className: 'name', text: r.label }),
      el('td', { className: 'num', text: number.format(r.total) }),
      el('td', { className: 'share' }, [
        el('span', { className: 'share-text', text: percent.format(r.share) }),
        bar,
      ]),
    ]);
  });
  container.replaceChildren(
    el('table', {}, [
      el('thead', {}, [
        el('tr', {}, [el('th', { text: 'Name' }), el('th', { text: 'Count' }), el('th', { text: 'Share' })]),
      ]),
      el('tbody', {}, body),
    ]),
  );
}
