// The service worker (served at /sw.js so that its scope is the whole site: play/views/offline.py). It keeps nothing
// by itself: a player's page or a sheet saves its own last state (static/js/offline.js), and this only hands that copy
// back when the page cannot be loaded at all. Online, every request goes to the network as if it were not here.
"use strict";

const PAGES = "twelveplus-pages"; // the last state of each kept page, as its own script saved it
const ASSETS = "twelveplus-assets"; // the CSS, JS and icons those pages need, as they saved them
const KEPT = "/offline/kept/"; // which kept pages the account has lost (play/urls.py "kept_pages")
const ASKED_AT_ONCE = 100; // paths in one question (the server reads no more: play.views.offline.ASKED_AT_MOST)
const PRUNE_WAIT = 2000; // ms a page's answer waits for that question: long enough to settle it, short if it hangs

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

// What a kept page needs to draw itself: never a page, a form's answer or a stream.
const ASSET_KINDS = new Set(["style", "script", "image", "manifest", "font"]);

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET" || new URL(request.url).origin !== self.location.origin) return;
  if (request.mode === "navigate") event.respondWith(page(event));
  else if (ASSET_KINDS.has(request.destination)) event.respondWith(asset(request));
  // anything else (htmx's requests, the live stream) is left to the browser
});

// A page from the network whenever the network answers — and then its old copy goes at once, whatever the answer
// (a sheet no longer shown, a session over, the GM's table where a player's page was): the page saves itself again if
// it is one to keep. Only a server in trouble (a 5xx: the database down) leaves the copy for a later time without
// signal. Only when nothing answers is its last copy shown, marked as such by the copy itself.
// Any page loaded online, whichever it is, also asks meanwhile whether the account may still see what the other
// copies show (prune), and is handed over once that is settled: a page opened next without signal is never one the
// account lost.
async function page(event) {
  const request = event.request;
  const pruning = prune().catch(() => {});
  event.waitUntil(pruning);
  try {
    const response = await fetch(request);
    if (response.status < 500) {
      await (await caches.open(PAGES)).delete(request.url);
      await Promise.race([pruning, new Promise((done) => setTimeout(done, PRUNE_WAIT))]);
    }
    return response;
  } catch (offline) {
    const copy = await caches.match(request.url, { cacheName: PAGES });
    if (copy) return copy;
    throw offline;
  }
}

// Kept copies follow rights (issue 48). A phone that lost a campaign or a character (removed from it, the character
// handed to someone else or taken out, a co-GM removed) loses every copy of it the next time it is online. Each copy
// names its account (X-Kept-For) and the pages it shows beneath it (X-Kept-Shows: a player's page, its sheets); the
// server is asked about all those paths, and answers for this session's account which of them it may no longer see
// (a path it was not asked about, or not of a kept page, it says nothing of; it says the same of a campaign that does
// not exist as of one the account may not see). A copy goes when it belongs to another account (or to none: signed
// out), or when it, or a page it shows, is lost. Without an answer (no signal, a server in trouble) nothing goes.
async function prune() {
  const pages = await caches.open(PAGES);
  const copies = [];
  for (const key of await pages.keys()) {
    const kept = await pages.match(key);
    if (!kept) continue;
    const shows = (kept.headers.get("X-Kept-Shows") || "").split(" ").filter(Boolean);
    copies.push({ key, user: kept.headers.get("X-Kept-For"), paths: [new URL(key.url).pathname, ...shows] });
  }
  if (copies.length === 0) return; // nothing kept: nothing to ask (the GM's table, a phone never used offline)
  const asked = Array.from(new Set(copies.flatMap((copy) => copy.paths)));
  const lost = new Set();
  let user = null;
  for (let start = 0; start < asked.length; start += ASKED_AT_ONCE) {
    const query = new URLSearchParams(asked.slice(start, start + ASKED_AT_ONCE).map((path) => ["path", path]));
    const response = await fetch(`${KEPT}?${query}`, { cache: "no-store", credentials: "same-origin" });
    if (!response.ok) return;
    const answer = await response.json();
    user = answer.user === null ? null : String(answer.user);
    answer.lost.forEach((path) => lost.add(path));
  }
  const gone = copies.filter((copy) => user === null || copy.user !== user || copy.paths.some((p) => lost.has(p)));
  await Promise.all(gone.map((copy) => pages.delete(copy.key)));
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
