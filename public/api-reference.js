// Starts the API reference of /docs: Scalar's standalone bundle (served by the gateway from its npm
// package) renders /openapi.json. Everything that would reach another origin is off: the default
// fonts, telemetry, the AI agent, MCP and the developer tools; the page's CSP refuses them anyway.

// Scalar's default theme misses WCAG AA contrast on its secondary text and method badges: darker
// in light mode, lighter in dark mode.
const contrast = `
.light-mode {
  --scalar-color-2: #525252; --scalar-color-3: #595959; --scalar-color-disabled: #595959;
  --scalar-color-green: #006b44; --scalar-color-blue: #0050a0; --scalar-color-orange: #9a4400;
  --scalar-color-red: #b02a1e; --scalar-color-yellow: #735600; --scalar-color-purple: #6a3d9a;
}
.dark-mode { --scalar-color-2: #c8c8c8; --scalar-color-3: #b4b4b4; --scalar-color-disabled: #b4b4b4; }
`;

Scalar.createApiReference('#reference', {
  url: '/openapi.json',
  // The document names no server: examples and "Test request" use the gateway that serves this page.
  servers: [{ url: window.location.origin, description: 'this gateway' }],
  withDefaultFonts: false,
  telemetry: false,
  showDeveloperTools: 'never',
  agent: { disabled: true },
  mcp: { disabled: true },
  documentDownloadType: 'json',
  persistAuth: false,
  customCss: contrast,
});

// What Scalar's markup leaves out for assistive technology, added as it renders: a name for the
// icon-only copy buttons, visible text inside the "show more" buttons' names, and keyboard access
// to the endpoint lists that scroll.
function accessible() {
  for (const button of document.querySelectorAll('button.scalar-code-copy:not([aria-label])'))
    button.setAttribute('aria-label', 'Copy');
  for (const button of document.querySelectorAll('button.show-more[aria-label]')) {
    const text = button.textContent.trim();
    const label = button.getAttribute('aria-label');
    if (text && !label.includes(text)) button.setAttribute('aria-label', `${text}: ${label}`);
  }
  for (const list of document.querySelectorAll('ul.endpoints:not([tabindex])')) list.setAttribute('tabindex', '0');
}
let pending = false;
new MutationObserver(() => {
  if (pending) return;
  pending = true;
  requestAnimationFrame(() => {
    pending = false;
    accessible();
  });
}).observe(document.body, { childList: true, subtree: true });
