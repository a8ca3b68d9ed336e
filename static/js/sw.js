// The service worker (served at /sw.js so that its scope is the whole site: play/views/offline.py). It keeps nothing
// by itself: a player's page or a sheet saves its own last state (static/js/offline.js), and this only hands that copy
// back when the page cannot be loaded at all. Online, every request goes to the network as if it were not here.
"use strict";

const PAGES = "twelveplus-pages"; // the last state of each kept page, as its own script saved it
const ASSETS = "twelveplus-assets"; // the CSS, JS and icons those pages need, as they saved them

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

// What a kept page needs to draw itself: never a page, a form's answer or a stream.
const ASSET_KINDS = new Set(["style", "script", "image", "manifest", "font"]);

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET" || new URL(request.url).origin !== self.location.origin) return;
  if (request.mode === "navigate") event.respondWith(page(request));
  else if (ASSET_KINDS.has(request.destination)) event.respondWith(asset(request));
  // anything else (htmx's requests, the live stream) is left to the browser
});

// A page from the network whenever the network answers — and then its old copy goes at once, whatever the answer
// (a sheet no longer shown, a session over, the GM's table where a player's page was): the page saves itself again if
// it is one to keep. Only a server in trouble (a 5xx: the database down) leaves the copy for a later time without
// signal. Only when nothing answers is its last copy shown, marked as such by the copy itself.
async function page(request) {
  try {
    const response = await fetch(request);
    if (response.status < 500) await (await caches.open(PAGES)).delete(request.url);
    return response;
  } catch (offline) {
    const copy = await caches.match(request.url, { cacheName: PAGES });
    if (copy) return copy;
    throw offline;
  }
}

async function asset(request) {
  try {
    return await fetch(request);
  } catch (offline) {
    const copy = await caches.match(request, { cacheName: ASSETS });
    if (copy) return copy;
    throw offline;
  }
}
