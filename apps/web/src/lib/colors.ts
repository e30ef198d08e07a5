/** WCAG relative luminance of `#rrggbb`. */
function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const v = parseInt(hex.slice(i, i + 2), 16) / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG contrast ratio of two `#rrggbb` colours (1 to 21). */
export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

const hex2 = (n: number) =>
  Math.round(Math.min(255, Math.max(0, n)))
    .toString(16)
    .padStart(2, '0');

/** `color` over white at `alpha` (Tailwind's `bg-primary/10`). */
function tint(color: string, alpha: number): string {
  return `#${[1, 3, 5].map((i) => hex2(parseInt(color.slice(i, i + 2), 16) * alpha + 255 * (1 - alpha))).join('')}`;
}

function toHsl(hex: string): [number, number, number] {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255) as [number, number, number];
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const l = (max + min) / 2;
  if (max === min) return [0, 0, l];
  const d = max - min;
  const s = l > 0.5 ? d / (2 - max - min) : d / (max + min);
  const h = (max === r ? (g - b) / d + (g < b ? 6 : 0) : max === g ? (b - r) / d + 2 : (r - g) / d + 4) / 6;
  return [h, s, l];
}

function fromHsl(h: number, s: number, l: number): string {
  const channel = (n: number) => {
    const k = (n + h * 12) % 12;
    const a = s * Math.min(l, 1 - l);
    return (l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1))) * 255;
  };
  return `#${hex2(channel(0))}${hex2(channel(8))}${hex2(channel(4))}`;
}

/** Text size WCAG AA asks 4.5:1 for. */
const AA_TEXT = 4.5;

/**
 * The brand colour as the interface uses it for text and for filled buttons with white text: the
 * configured colour when it reads well (WCAG AA, 4.5:1) on white, on the page background
 * (slate-50) and on its own 10 % tint (badges), else the same hue darkened just enough.
 */
export function readableBrandColor(hex: string): string {
  const color = hex.toLowerCase();
  const worst = (c: string) =>
    Math.min(contrastRatio(c, '#ffffff'), contrastRatio(c, '#f8fafc'), contrastRatio(c, tint(c, 0.1)));
  if (worst(color) >= AA_TEXT) return color;
  const [h, s, initial] = toHsl(color);
  for (let l = initial; l > 0; l -= 0.005) {
    const candidate = fromHsl(h, s, l);
    if (worst(candidate) >= AA_TEXT) return candidate;
  }
  return '#000000';
}
