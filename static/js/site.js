// Every page: when an htmx request fails (the database is down, a cap was reached, the network dropped, the session
// ended), say so in the page's alert line instead of leaving the click without an answer. The words come from the
// page (translated).
(function () {
  "use strict";

  // The lines that answer a request: one at a time. "not-found" is a page's own line for something gone meanwhile
  // (components/screen_end.html, on the live screens); elsewhere a 404 gets the general "request-failed" line.
  var LINES = ["request-failed", "session-ended", "not-found"];

  function only(id) {
    LINES.forEach(function (each) {
      var line = document.getElementById(each);
      if (line) line.hidden = each !== id;
    });
  }

  function show(text) {
    var notice = document.getElementById("request-failed");
    if (!notice || !text) return;
    notice.textContent = text;
    only("request-failed");
  }

  // The session ended elsewhere (a logout in another tab, its expiry): one line, from the page (base.html), with a
  // link to sign in again and come back here. Any page's script that learns it may call it, e.g. a live stream
  // that finds itself refused:  window.twelveplus.sessionEnded()
  function sessionEnded() {
    if (document.getElementById("session-ended")) only("session-ended");
  }
  window.twelveplus = window.twelveplus || {};
  window.twelveplus.sessionEnded = sessionEnded;

  // Each answer is read from the request itself, not from htmx's events on the element that sent it: a live update
  // may redraw that element (a card) while its request is out, and then htmx's events reach no listener up here.
  function answered(xhr) {
    var status = xhr.status;
    var notice = document.getElementById("request-failed");
    if (!notice) return;
    // A live screen says itself why an action was refused when it is about the screen (static/js/screen.js).
    if (status === 404 && window.twelveplus.refused) {
      only(null);
      if (window.twelveplus.refused(xhr)) return;
    }
    // 2xx, 3xx and 422 (a form refused, drawn again with its reasons) are answers the page shows itself.
    if (status < 400 || status === 422) only(null);
    // 401: the server's answer to an htmx request without a session (config.login_required).
    else if (status === 401) sessionEnded();
    else if (status === 404 && document.getElementById("not-found")) only("not-found");
    else if (status === 503) show(notice.dataset.unavailable);
    else if (status === 429) show(notice.dataset.tooMany);
    // Anything else refused (a stale CSRF token after signing in again elsewhere, something gone meanwhile): the
    // click must not go unanswered, and a reload is the way out.
    else show(notice.dataset.failed);
  }
  document.addEventListener("htmx:beforeSend", function (event) {
    var xhr = event.detail.xhr;
    if (!xhr) return;
    xhr.addEventListener("load", function () {
      answered(xhr);
    });
    // No answer at all (the network, the server gone); an aborted request (a newer one replaced it) is no failure.
    xhr.addEventListener("error", function () {
      var notice = document.getElementById("request-failed");
      if (notice) show(notice.dataset.offline);
    });
  });

  // A form htmx has not taken over yet (drawn by a swap a moment ago: htmx wires new content after it settles) is
  // still sent by htmx, never as a plain page submit, which a live-drawn form could not even make (no CSRF field).
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (event.defaultPrevented || !(form instanceof HTMLFormElement) || !form.hasAttribute("hx-post")) return;
    event.preventDefault();
    htmx.process(form);
    htmx.trigger(form, "submit");
  });

  // "Sucesos anteriores": the older entries take the button's place; the keyboard goes to the first of them.
  var older = null;
  document.addEventListener("htmx:beforeSwap", function (event) {
    var more = event.detail.elt.closest && event.detail.elt.closest(".log-more");
    if (more) older = { list: more.parentElement, index: Array.prototype.indexOf.call(more.parentElement.children, more) };
  });
  document.addEventListener("htmx:afterSettle", function () {
    if (!older) return;
    var first = older.list.children[older.index];
    older = null;
    if (first) {
      first.tabIndex = -1;
      first.focus();
    }
  });

  // A called check answered on a phone: the keyboard goes to the next check still owed, else to what the die did.
  document.addEventListener("htmx:afterSettle", function (event) {
    var config = event.detail.requestConfig;
    if (!config || !config.path || config.path.indexOf("/act/answer_check/") === -1) return;
    if (!event.detail.successful) {
      // Refused (a die out of range): back into the die field, beside its message.
      var field = event.target.querySelector && event.target.querySelector("input[name=die]");
      if (field) field.focus();
      return;
    }
    if (document.getElementById("calls")) return; // the GM's table moves the focus itself
    var next = document.querySelector(".my-checks input[name=die]");
    var said = document.getElementById("check-said");
    if (next) next.focus();
    else if (said && said.textContent.trim()) {
      said.tabIndex = -1;
      said.focus();
    }
  });
})();
