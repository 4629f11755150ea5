/**
 * Image edits as data: markup colours and shapes, and the markup drawn as one SVG layer (our own
 * SVG, built from validated numbers; user SVG is never decoded: decision 162). No I/O.
 */

export const MARKUP_COLORS: Record<string, string> = {
  red: '#e8352e',
  orange: '#f7941d',
  yellow: '#ffd200',
  green: '#43b649',
  blue: '#1c75bc',
  light_blue: '#27aae1',
  violet: '#8e4f9e',
  black: '#000000',
  white: '#ffffff',
};

interface Stroke {
  /** A name of MARKUP_COLORS or #rrggbb. */
  color: string;
  stroke_width?: number;
}
export type MarkupShape =
  | ({ shape: 'rectangle'; x: number; y: number; width: number; height: number } & Stroke)
  | ({ shape: 'circle'; x: number; y: number; radius: number } & Stroke)
  | ({ shape: 'line' | 'arrow'; from: { x: number; y: number }; to: { x: number; y: number } } & Stroke);

export interface ImageEdit {
  /** In pixels of the (upright) original. */
  crop?: { x: number; y: number; width: number; height: number };
  /** In pixels of the cropped image. */
  markup?: MarkupShape[];
}

export class InvalidEditError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'InvalidEditError';
  }
}

function colorOf(name: string): string {
  return MARKUP_COLORS[name] ?? name;
}

/** The markup as one SVG the size of the image; numbers only come from validated input. */
export function markupSvg(shapes: MarkupShape[], width: number, height: number): string {
  const parts = shapes.map((shape, index) => {
    const color = colorOf(shape.color);
    const strokeWidth = shape.stroke_width ?? Math.max(2, Math.round(Math.min(width, height) / 100));
    const stroke = `fill="none" stroke="${color}" stroke-width="${strokeWidth}"`;
    switch (shape.shape) {
      case 'rectangle':
        return `<rect x="${shape.x}" y="${shape.y}" width="${shape.width}" height="${shape.height}" ${stroke}/>`;
      case 'circle':
        return `<circle cx="${shape.x}" cy="${shape.y}" r="${shape.radius}" ${stroke}/>`;
      case 'line':
        return `<line x1="${shape.from.x}" y1="${shape.from.y}" x2="${shape.to.x}" y2="${shape.to.y}" ${stroke}/>`;
      case 'arrow': {
        const id = `head${index}`;
        return (
          `<defs><marker id="${id}" markerWidth="4" markerHeight="4" refX="2" refY="2" orient="auto" ` +
          `markerUnits="strokeWidth">` +
          `<path d="M0,0 L4,2 L0,4 z" fill="${color}"/></marker></defs>` +
          `<line x1="${shape.from.x}" y1="${shape.from.y}" x2="${shape.to.x}" y2="${shape.to.y}" ${stroke} ` +
          `marker-end="url(#${id})"/>`
        );
      }
      default:
        return '';
    }
  });
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ` +
    `${height}">${parts.join('')}</svg>`
  );
}
