// Every page: when an htmx request fails (the database is down, a cap was reached, the network dropped), say so in
// the page's alert line instead of leaving the click without an answer. The words come from the page (translated).
(function () {
  "use strict";

  function show(text) {
    var notice = document.getElementById("request-failed");
    if (!notice || !text) return;
    notice.textContent = text;
    notice.hidden = false;
  }

  function hide() {
    var notice = document.getElementById("request-failed");
    if (notice) notice.hidden = true;
  }

  document.addEventListener("htmx:responseError", function (event) {
    var notice = document.getElementById("request-failed");
    if (!notice) return;
    var status = event.detail.xhr ? event.detail.xhr.status : 0;
    if (status === 503) show(notice.dataset.unavailable);
    else if (status === 429) show(notice.dataset.tooMany);
    else if (status >= 500) show(notice.dataset.failed);
  });
  document.addEventListener("htmx:sendError", function () {
    var notice = document.getElementById("request-failed");
    if (notice) show(notice.dataset.offline);
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    if (event.detail.successful) hide();
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
