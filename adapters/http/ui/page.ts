/**
 * The console's one HTML page. Written here (not by the bundler) so the asset URLs and the API's
 * base path follow the handler's options; the page carries no inline script or style, so the
 * content security policy can forbid both.
 */
export function consolePage(facts: {
  uiBase: string;
  apiBase: string;
  maxFileBytes: number;
  script: string;
  styles: readonly string[];
}): string {
  const { uiBase, apiBase, maxFileBytes, script, styles } = facts;
  const links = styles.map((href) => `<link rel="stylesheet" href="${attr(uiBase + href)}">`).join('\n    ');
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="color-scheme" content="light dark">
    <meta name="ragdesk-api-base" content="${attr(apiBase)}">
    <meta name="ragdesk-ui-base" content="${attr(uiBase)}">
    <meta name="ragdesk-max-file-bytes" content="${maxFileBytes}">
    <link rel="icon" href="data:,">
    <title>ragdesk</title>
    ${links}
    <script type="module" src="${attr(uiBase + script)}"></script>
  </head>
  <body>
    <div id="app"><noscript>The ragdesk console needs JavaScript.</noscript></div>
  </body>
</html>
`;
}

/**
 * The answer to a console address the browser cannot decode (`/chat/%E0%A4%A`): the console's
 * router would fail on it and leave a blank page, so the server says what is wrong instead.
 */
export function badAddressPage(uiBase: string): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="color-scheme" content="light dark">
    <link rel="icon" href="data:,">
    <title>Bad address - ragdesk</title>
  </head>
  <body>
    <h1>Bad address</h1>
    <p>This address has a malformed percent-encoding (a <code>%</code> not followed by a valid escape), so no page can be shown for it.</p>
    <p><a href="${attr(uiBase)}">Open the console</a></p>
  </body>
</html>
`;
}

function attr(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
