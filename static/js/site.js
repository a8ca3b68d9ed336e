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
})();
