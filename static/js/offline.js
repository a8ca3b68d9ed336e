// A player's page and a sheet work without signal (issue 25). Each keeps a copy of what it shows — as loaded, and as
// every live change redraws it — in the browser's Cache Storage; the service worker (static/js/sw.js) hands that copy
// back only when the page cannot be loaded. The copy says it is one ("sin conexión · visto a las 20:14": the last time
// it was current), takes no action, and gives way to the live page as soon as the server answers again.
// The login page (and a logout, by the server's Clear-Site-Data) forgets every copy: one account never sees another's.
// Copies follow rights: each says whose it is and which pages it shows beneath it, and the worker drops those of what
// the account lost the next time a page loads online (static/js/sw.js, prune; issue 48).
// Which page is which, and the words, come from the page: <body data-offline="keep|forget" data-user data-worker>.
(function () {
  "use strict";

  const PAGES = "twelveplus-pages";
  const ASSETS = "twelveplus-assets";
  // The copy is served with a policy at least as strict as the site's (config/settings.py SECURE_CSP).
  const POLICY =
    "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'self'; form-action 'self'; " +
    "frame-ancestors 'none'";
  const body = document.body;
  if (!body || !("caches" in window)) return; // not a secure context: nothing is kept

  function forget() {
    return caches.keys().then((names) => Promise.all(names.filter((n) => n.startsWith("twelveplus-")).map((n) => caches.delete(n))));
  }

  if (body.dataset.offline === "forget") {
    forget();
    return;
  }
  if (body.dataset.offline !== "keep") return;

  const note = document.getElementById("offline-note");
  const here = location.href.split("#")[0];

  function seenWords(seen) {
    const lang = document.documentElement.lang || undefined;
    const when = new Date(seen);
    const time = new Intl.DateTimeFormat(lang, { hour: "numeric", minute: "2-digit" }).format(when);
    const day = new Intl.DateTimeFormat(lang, { day: "numeric", month: "short" }).format(when);
    const today = new Date().toDateString() === when.toDateString();
    return (today ? note.dataset.seenAt : note.dataset.seenOn).replace("{time}", time).replace("{day}", day);
  }

  function showNote(seen) {
    note.querySelector(".offline-when").textContent = seenWords(seen);
    note.querySelector(".offline-said").textContent = "";
    note.hidden = false;
  }

  function refuse(words) {
    note.querySelector(".offline-said").textContent = words;
    note.hidden = false;
  }

  // --- a copy, opened without signal ------------------------------------------------------------------------------
  const copySeen = document.documentElement.dataset.offlineSeen;
  if (copySeen) {
    body.classList.add("offline-copy");
    showNote(+copySeen);
    document.addEventListener(
      "submit",
      (event) => {
        event.preventDefault();
        refuse(note.dataset.refused);
      },
      true,
    );
    // Another kept page opens from its own copy; anything else is not on this phone.
    document.addEventListener(
      "click",
      (event) => {
        const link = event.target.closest && event.target.closest("a[href]");
        if (!link) return;
        const url = new URL(link.href, location.href);
        if (url.href.split("#")[0] === here) return; // a place on this page
        event.preventDefault();
        caches.match(url.href.split("#")[0], { cacheName: PAGES }).then((copy) => {
          if (copy) location.href = url.href;
          else refuse(note.dataset.notKept);
        });
      },
      true,
    );
    // Back online: the live page, drawn afresh (the service worker asks the network first) — once the server
    // answers, for "online" may come a moment before the network carries anything, or with no server behind it.
    let timer = null;
    const check = (delay) => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        if (!navigator.onLine) return check(10000);
        fetch(here, { method: "HEAD", cache: "no-store" }).then(
          () => location.reload(),
          () => check(Math.min(Math.max(delay * 2, 500), 10000)),
        );
      }, delay);
    };
    window.addEventListener("online", () => check(0));
    check(10000);
    return;
  }

  // --- the live page: keep what it shows --------------------------------------------------------------------------
  if ("serviceWorker" in navigator && body.dataset.worker) navigator.serviceWorker.register(body.dataset.worker);

  // Current: loaded from the server, or following its live stream. Nothing is saved while not current, so a copy's
  // time is always a moment when it was true.
  let current = true;
  let seenAt = Date.now();
  let firstSave = true;

  // What the screen shows, as a page that cannot act: no htmx, no stream, no CSRF token, every control disabled.
  function snapshot(seen) {
    const copy = document.documentElement.cloneNode(true);
    copy.dataset.offlineSeen = String(seen);
    copy.querySelectorAll("*").forEach((element) => {
      Array.from(element.attributes).forEach(({ name }) => {
        if (name.startsWith("hx-") || name.startsWith("sse-")) element.removeAttribute(name);
      });
    });
    copy.querySelectorAll("input[name=csrfmiddlewaretoken]").forEach((field) => field.remove());
    copy.querySelectorAll("button, input, select, textarea").forEach((field) => field.setAttribute("disabled", ""));
    copy.querySelectorAll("#request-failed, #session-ended, #offline-note").forEach((line) => line.setAttribute("hidden", ""));
    const copyBody = copy.querySelector("body");
    if (copyBody) delete copyBody.dataset.live;
    return "<!DOCTYPE html>\n" + copy.outerHTML;
  }

  // The pages this one shows beneath it (a player's page: its sheets): the copy goes when the account loses any of
  // them, for it shows them too (static/js/sw.js, prune).
  function beneath() {
    const path = location.pathname;
    const found = new Set();
    document.querySelectorAll("a[href]").forEach((link) => {
      const url = new URL(link.href, location.href);
      if (url.origin === location.origin && url.pathname !== path && url.pathname.startsWith(path)) found.add(url.pathname);
    });
    return Array.from(found).sort();
  }

  async function save() {
    if (!current) return;
    seenAt = Date.now();
    const user = body.dataset.user || "";
    const pages = await caches.open(PAGES);
    if (firstSave) {
      firstSave = false;
      // Only this account's pages are ever kept on this browser.
      for (const key of await pages.keys()) {
        const kept = await pages.match(key);
        if (!kept || kept.headers.get("X-Kept-For") !== user) await pages.delete(key);
      }
      const needs = Array.from(document.querySelectorAll("link[rel=stylesheet], link[rel=icon], script[src]"), (e) => e.href || e.src);
      caches.open(ASSETS).then((assets) => assets.addAll(needs)).catch(() => {});
    }
    const headers = {
      "Content-Type": "text/html; charset=utf-8",
      "Content-Security-Policy": POLICY,
      "X-Kept-For": user,
      "X-Kept-Shows": beneath().join(" "),
    };
    await pages.put(here, new Response(snapshot(seenAt), { headers }));
    body.dataset.offlineSaved = String(seenAt); // what tests wait for
  }

  let pending = null;
  function saveSoon() {
    clearTimeout(pending);
    pending = setTimeout(save, 200);
  }

  function lost() {
    if (!current) return;
    current = false;
    clearTimeout(pending);
    showNote(seenAt);
  }

  // Every drawing this page receives (its stream's, its own actions' answers) is what the copy must show.
  document.addEventListener("htmx:sseBeforeMessage", (event) => {
    if (event.detail.type === "end") {
      // The screen ended (its session, the campaign): its copy would show what is no longer so.
      current = false;
      caches.open(PAGES).then((pages) => pages.delete(here));
      if (event.detail.data === "session") forget();
      return;
    }
    current = true;
    note.hidden = true;
    saveSoon();
  });
  document.addEventListener("twelveplus:drawn", saveSoon);
  document.addEventListener("htmx:afterSettle", saveSoon);
  document.addEventListener("htmx:sseError", () => {
    if (!navigator.onLine) lost();
    else current = false; // the stream is away: wait for its next message (the whole screen) before saving again
  });
  window.addEventListener("offline", lost);
  // Without a live stream (served without ASGI), only a reload makes the page current again.
  window.addEventListener("online", () => {
    if (!document.querySelector("[sse-connect]")) location.reload();
  });
  // A silent stream still means the page is current: the copy's time follows it.
  setInterval(() => {
    if (current && document.visibilityState === "visible") save();
  }, 60000);
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") save();
  });
  save();
})();
