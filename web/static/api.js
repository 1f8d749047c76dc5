/* The one way a page changes state on the server: a JSON POST carrying the page's CSRF token.
   The server writes the token into <meta name="foxgeese-csrf" content="..."> of every page it
   renders and checks it together with the request's Host and Origin (docs/web.md, "Security"). */
"use strict";

function csrfToken() {
  var meta = document.querySelector('meta[name="foxgeese-csrf"]');
  return meta ? meta.getAttribute("content") : "";
}

/* POST `body` (a value, or a string that is already JSON text) to `url`; returns fetch's promise. */
function postJson(url, body) {
  return fetch(url, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-Foxgeese-Csrf": csrfToken() },
    body: typeof body === "string" ? body : JSON.stringify(body)
  });
}
