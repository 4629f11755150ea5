/** Elements built with text, never markup: nothing typed or stored is parsed as HTML. */

type Child = Node | string | null | undefined | false;
type Attributes = Record<string, string | number | boolean | undefined>;

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    element.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children) if (child) element.append(child);
  return element;
}

/** A button of type "button" that runs `action` on click. */
export function button(label: string, action: () => void, attributes: Attributes = {}): HTMLButtonElement {
  const element = el('button', { type: 'button', ...attributes }, label);
  element.addEventListener('click', action);
  return element;
}

let idCounter = 0;
export function uniqueId(prefix: string): string {
  idCounter += 1;
  return `${prefix}-${idCounter}`;
}

/** A labelled form field: the label names the control by id. */
export function field(label: string, control: HTMLElement): HTMLElement {
  control.id ||= uniqueId('field');
  return el('div', { class: 'editor-field' }, el('label', { for: control.id }, label), control);
}
