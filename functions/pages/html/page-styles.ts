/**
 * The pages' one stylesheet, inline in every page (a few KB: no second request, nothing to
 * cache-bust). Phone first (decision 297): nothing is wider than the screen at 360 px (every
 * image and video is capped by its column, long words wrap), and every control and header link
 * is a touch target of at least 44 px. Safety callouts (note, caution, reminder lines) carry an
 * icon, a colour and their word. Print: a step is kept whole on a page, its images beside its
 * lines and at most 6 cm high, so that three short steps share a page; every link prints its URL.
 */
export const PAGE_STYLES = `
:root { color-scheme: light; --ink: #1b1f24; --muted: #4a5260; --line: #d5d9e0; --accent: #0b5cad; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif;
  color: var(--ink); background: #fff; }
a { color: var(--accent); }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible {
  outline: 3px solid #f0a500; outline-offset: 2px; }
main, .site-header { overflow-wrap: anywhere; }
.skip { position: absolute; left: -999px; top: 0; background: #fff; padding: .5rem; }
.skip:focus { left: .5rem; }
.site-header { display: flex; flex-wrap: wrap; gap: 1rem; align-items: center; justify-content: space-between;
  padding: .75rem 1.5rem; border-bottom: 1px solid var(--line); }
.site-name { font-weight: 700; font-size: 1.15rem; text-decoration: none; color: var(--ink); }
.site-header nav ul { list-style: none; display: flex; flex-wrap: wrap; gap: .25rem 1rem; margin: 0; padding: 0;
  align-items: center; }
.site-header nav a, .site-name { display: inline-flex; align-items: center; min-height: 44px; }
.site-search { display: flex; gap: .25rem; flex: 1 1 14rem; max-width: 28rem; }
.site-search input { flex: 1; min-width: 0; }
input, select, button, .button { font: inherit; min-height: 44px; padding: .4rem .6rem; border: 1px solid #767d88;
  border-radius: 4px; background: #fff; color: var(--ink); }
button, .button { background: var(--accent); border-color: var(--accent); color: #fff; cursor: pointer;
  display: inline-flex; align-items: center; text-decoration: none; }
main { max-width: 60rem; margin: 0 auto; padding: 1rem 1.5rem 3rem; }
main li > a, .pager a { display: inline-block; min-height: 44px; padding: .6rem 0; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .4rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
.scroll { overflow-x: auto; max-width: 100%; }
mark { background: #fff0a8; color: inherit; padding: 0 .1em; }
.results { list-style: none; padding: 0; }
.results li { padding: .5rem 0; border-bottom: 1px solid var(--line); }
.pager { display: flex; gap: 1.5rem; }
.filters { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: end; margin: 1rem 0; }
.filters label { display: flex; flex-direction: column; font-size: .9rem; }
.overdue, .problem { color: #a4000f; font-weight: 600; }
.session { max-width: 26rem; margin: 1rem auto; }
.session label { display: block; margin-top: 1rem; font-weight: 600; }
.session input { width: 100%; }
.session button { margin-top: 1.25rem; }
.meta { color: var(--muted); font-size: .9rem; }
.breadcrumbs ol { list-style: none; display: flex; flex-wrap: wrap; gap: .5rem; padding: 0; margin: 0 0 .5rem; }
.breadcrumbs li + li::before { content: "›"; margin-right: .5rem; color: var(--muted); }
img { max-width: 100%; height: auto; }
.cover { display: block; width: 36rem; max-width: 100%; border-radius: 4px; }
.step { border-top: 1px solid var(--line); padding: 1rem 0; }
.step-media { display: flex; flex-wrap: wrap; gap: .5rem; margin: .5rem 0; }
.step-media figure { margin: 0; max-width: 100%; }
.step-media img { display: block; width: 28rem; max-width: 100%; }
.step-media video { max-width: 100%; width: 36rem; }
video, iframe { max-width: 100%; }
.lines { padding-left: 1.25rem; }
.lines li { margin: .25rem 0; }
.lines .level-1 { margin-left: 1.5rem; } .lines .level-2 { margin-left: 3rem; } .lines .level-3 { margin-left: 4.5rem; }
.lines .level-4 { margin-left: 6rem; } .lines .level-5 { margin-left: 7.5rem; }
.bullet-red::marker { color: #b00020; } .bullet-orange::marker { color: #b35900; }
.bullet-yellow::marker { color: #8a6d00; } .bullet-green::marker { color: #1b6e20; }
.bullet-light_blue::marker { color: #0a6e8a; } .bullet-blue::marker { color: #0b5cad; }
.bullet-violet::marker { color: #6a2c91; }
.line-icon { font-weight: 700; }
.lines .callout { list-style: none; margin: .5rem 0; padding: .5rem .75rem; border-left: 6px solid;
  border-radius: 4px; display: flex; gap: .5rem; align-items: flex-start; }
.callout svg { flex: none; width: 1.5rem; height: 1.5rem; }
.lines .callout-caution { border-color: #b35900; background: #fff3e0; }
.callout-caution svg, .callout-caution .line-icon { color: #8a4500; }
.lines .callout-note { border-color: #0b5cad; background: #e8f1fb; }
.callout-note svg, .callout-note .line-icon { color: #0b4f94; }
.lines .callout-reminder { border-color: #6a2c91; background: #f3ebf8; }
.callout-reminder svg, .callout-reminder .line-icon { color: #5b2480; }
.items { display: grid; grid-template-columns: repeat(auto-fit, minmax(16rem, 1fr)); gap: 1rem; }
.guide-list { list-style: none; padding: 0; display: grid; gap: .75rem;
  grid-template-columns: repeat(auto-fill, minmax(14rem, 1fr)); }
.guide-list img { display: block; border-radius: 4px; }
.stages { padding-left: 1.5rem; }
.status { font-weight: 600; }
.notice { padding: .75rem 1rem; border: 1px solid var(--line); border-radius: 4px; background: #f6f8fa; }
.diff-steps { padding-left: 0; list-style: none; }
.diff-step { border-top: 1px solid var(--line); padding: .5rem 0; }
.diff-step h3 { font-size: 1.05rem; margin: .25rem 0; }
.diff-lines { list-style: none; padding: 0; margin: .25rem 0; }
.diff-lines li { padding: .2rem .5rem; border-left: 4px solid transparent; white-space: pre-wrap; }
.diff-added { background: #e6f4ea; border-color: #1b6e20 !important; }
.diff-removed { background: #fde7e9; border-color: #a4000f !important; }
.diff-same { color: var(--muted); }
ins, del { text-decoration: none; }
.diff-removed del { text-decoration: line-through; }
.diff-word { font-weight: 700; }
.review-link, .breadcrumbs a { display: inline-flex; align-items: center; min-height: 44px; }
@media (max-width: 40rem) {
  .site-header { padding: .5rem 1rem; gap: .5rem; }
  main { padding: .75rem 1rem 2rem; }
  .lines { padding-left: 1rem; }
  .lines .level-1 { margin-left: .75rem; } .lines .level-2 { margin-left: 1.5rem; }
  .lines .level-3, .lines .level-4, .lines .level-5 { margin-left: 2rem; }
}
.site-footer { border-top: 1px solid var(--line); padding: 1rem 1.5rem; color: var(--muted); font-size: .85rem; }
@media print {
  @page { margin: 1.5cm; }
  body { font-size: 11pt; }
  .site-header nav, .site-search, .skip, .no-print { display: none; }
  main { max-width: none; padding: 0; }
  .step { break-inside: avoid; page-break-inside: avoid; padding: .3cm 0; display: grid;
    grid-template-columns: minmax(0, 9cm) minmax(0, 1fr); column-gap: .5cm; align-items: start; }
  .step h2 { grid-column: 1 / -1; margin: 0 0 .2cm; font-size: 13pt; }
  .step .step-media { grid-column: 1; margin: 0; flex-wrap: nowrap; }
  .step .step-media figure { flex: 1 1 0; min-width: 0; }
  .step .lines { grid-column: 2; margin: 0; }
  .step:not(:has(.step-media)) .lines { grid-column: 1 / -1; }
  h1, h2, h3 { break-after: avoid; page-break-after: avoid; }
  img, video { max-width: 100% !important; max-height: 12cm; break-inside: avoid; }
  .step-media img { max-height: 6cm; width: auto; object-fit: contain; }
  .cover { max-height: 8cm; width: auto; }
  .lines .callout, .diff-lines li { border-left-width: 4pt; print-color-adjust: exact;
    -webkit-print-color-adjust: exact; }
  a { color: inherit; }
  a[href^="http"]::after, a[href^="/"]::after { content: " (" attr(href) ")"; font-size: 9pt; word-break: break-all; }
  .site-name::after, .guide-list a::after { content: none !important; }
}
`;
