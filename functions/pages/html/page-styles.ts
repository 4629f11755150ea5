/**
 * The pages' one stylesheet, inline in every page (a few KB: no second request, nothing to
 * cache-bust). Screen and print: on paper a step is kept whole on a page, images fit the
 * column, and every link prints its URL after its text.
 */
export const PAGE_STYLES = `
:root { color-scheme: light; --ink: #1b1f24; --muted: #4a5260; --line: #d5d9e0; --accent: #0b5cad; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif;
  color: var(--ink); background: #fff; }
a { color: var(--accent); }
a:focus-visible, button:focus-visible { outline: 3px solid #f0a500; outline-offset: 2px; }
.skip { position: absolute; left: -999px; top: 0; background: #fff; padding: .5rem; }
.skip:focus { left: .5rem; }
.site-header { display: flex; flex-wrap: wrap; gap: 1rem; align-items: center; justify-content: space-between;
  padding: .75rem 1.5rem; border-bottom: 1px solid var(--line); }
.site-name { font-weight: 700; font-size: 1.15rem; text-decoration: none; color: var(--ink); }
.site-header nav ul { list-style: none; display: flex; gap: 1rem; margin: 0; padding: 0; }
main { max-width: 60rem; margin: 0 auto; padding: 1rem 1.5rem 3rem; }
.meta { color: var(--muted); font-size: .9rem; }
.breadcrumbs ol { list-style: none; display: flex; flex-wrap: wrap; gap: .5rem; padding: 0; margin: 0 0 .5rem; }
.breadcrumbs li + li::before { content: "›"; margin-right: .5rem; color: var(--muted); }
img { max-width: 100%; height: auto; }
.cover { max-width: 36rem; border-radius: 4px; }
.step { border-top: 1px solid var(--line); padding: 1rem 0; }
.step-media { display: flex; flex-wrap: wrap; gap: .5rem; margin: .5rem 0; }
.step-media figure { margin: 0; }
.step-media img { max-width: 28rem; }
.step-media video { max-width: 100%; width: 36rem; }
.lines { padding-left: 1.25rem; }
.lines li { margin: .25rem 0; }
.lines .level-1 { margin-left: 1.5rem; } .lines .level-2 { margin-left: 3rem; } .lines .level-3 { margin-left: 4.5rem; }
.lines .level-4 { margin-left: 6rem; } .lines .level-5 { margin-left: 7.5rem; }
.bullet-red::marker { color: #b00020; } .bullet-orange::marker { color: #b35900; }
.bullet-yellow::marker { color: #8a6d00; } .bullet-green::marker { color: #1b6e20; }
.bullet-light_blue::marker { color: #0a6e8a; } .bullet-blue::marker { color: #0b5cad; }
.bullet-violet::marker { color: #6a2c91; }
.line-icon { font-weight: 700; }
.items { display: grid; grid-template-columns: repeat(auto-fit, minmax(16rem, 1fr)); gap: 1rem; }
.guide-list { list-style: none; padding: 0; display: grid; gap: .75rem;
  grid-template-columns: repeat(auto-fill, minmax(14rem, 1fr)); }
.guide-list img { display: block; border-radius: 4px; }
.stages { padding-left: 1.5rem; }
.status { font-weight: 600; }
.notice { padding: .75rem 1rem; border: 1px solid var(--line); border-radius: 4px; background: #f6f8fa; }
.site-footer { border-top: 1px solid var(--line); padding: 1rem 1.5rem; color: var(--muted); font-size: .85rem; }
@media print {
  @page { margin: 1.5cm; }
  body { font-size: 11pt; }
  .site-header nav, .skip, .no-print { display: none; }
  main { max-width: none; padding: 0; }
  .step { break-inside: avoid; page-break-inside: avoid; }
  h1, h2, h3 { break-after: avoid; page-break-after: avoid; }
  img, video { max-width: 100% !important; max-height: 12cm; break-inside: avoid; }
  .step-media img { max-width: 48%; }
  a { color: inherit; }
  a[href^="http"]::after, a[href^="/"]::after { content: " (" attr(href) ")"; font-size: 9pt; word-break: break-all; }
  .site-name::after, .guide-list a::after { content: none !important; }
}
`;
