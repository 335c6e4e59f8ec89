import { CONSOLE_SCRIPT, CONSOLE_STYLE } from "./assets.generated.js";

/**
 * The console's one document and its two bundled assets (scripts/build-console.ts). Everything the page
 * loads comes from this origin: the policy allows scripts, styles and fetches from 'self' only, no inline
 * script or style element, no framing. The page holds no credential; the user signs in through the API.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

export const CONSOLE_HEADERS = {
  "Content-Security-Policy": CONSOLE_CSP,
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "Cross-Origin-Opener-Policy": "same-origin",
  "X-Frame-Options": "DENY",
} as const;

export const CONSOLE_ASSETS = new Map([CONSOLE_SCRIPT, CONSOLE_STYLE].map((a) => [a.name, a]));

export const CONSOLE_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>Incumbent console</title>
<link rel="stylesheet" href="/console/assets/${CONSOLE_STYLE.name}">
<script type="module" src="/console/assets/${CONSOLE_SCRIPT.name}"></script>
</head>
<body>
<div id="app"></div>
<noscript>The Incumbent console needs JavaScript; the API itself is documented at /api/v2/docs.</noscript>
</body>
</html>
`;
