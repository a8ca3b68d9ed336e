// Every screen of a campaign (the GM's table, a player's page, a sheet) is kept true by one path (play/screens/regions.py):
// each change arrives — in the answer to this tab's own action, or on the screen's live stream — as the regions it
// touched, each an element with the id of the one it updates, the campaign version it was drawn at (data-v) and how it
// lands (data-how). Nothing here knows what a region holds: it only puts each in place without ever replacing a form
// being typed in, nor losing the focus, and never lets an older drawing cover a newer one.
(function () {
  "use strict";

  // This tab's name, sent with every request (X-Tab) and with its stream: a change this tab makes reaches it once, in
  // the answer to its request, and its stream leaves it out. Random per load, so a duplicated tab has its own.
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  const tab = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  // And the role the screen was drawn for (components/screen_end.html): a stream asked for it by someone who holds the
  // other role now ends at once, saying so (play.live.connects.admit), instead of sending another screen's regions.
  const drawnAs = (document.getElementById("screen-gone") || { dataset: {} }).dataset.as;
  document.querySelectorAll("[sse-connect]").forEach((source) => {
    const url = source.getAttribute("sse-connect");
    const role = drawnAs ? `&as=${drawnAs}` : "";
    source.setAttribute("sse-connect", `${url}${url.includes("?") ? "&" : "?"}tab=${tab}${role}`);
  });
  document.addEventListener("htmx:configRequest", (event) => {
    event.detail.headers["X-Tab"] = tab;
  });

  // --- what a person is doing: never undone by a change ------------------------------------------------------------

  function changedByHand(field) {
    if (!("defaultValue" in field) || field.type === "hidden" || field.type === "submit") return false; // a button
    if (field.type === "checkbox" || field.type === "radio") return field.checked !== field.defaultChecked;
    if (field.tagName === "SELECT") return Array.from(field.options).some((o) => o.selected !== o.defaultSelected);
    return field.value !== field.defaultValue;
  }

  function beingTyped(form) {
    return Array.from(form.elements).some(changedByHand);
  }

  // What tells an element from its twin in a new drawing: its id, else what it is and where it goes.
  function keyOf(element) {
    if (element.id) return `#${element.id}`;
    const goes = ["href", "hx-get", "hx-post", "name", "value"].map((a) => element.getAttribute(a) || "").join("|");
    return `${element.tagName}|${goes}|${element.textContent.trim()}`;
  }

  function findByKey(root, key) {
    if (key.startsWith("#")) return root.querySelector(`#${CSS.escape(key.slice(1))}`);
    return Array.from(root.querySelectorAll("a, button, input, select, textarea, summary")).find((e) => keyOf(e) === key);
  }

  // Moves a node before another, keeping its focus and state where the browser can (moveBefore).
  function moveBefore(parent, node, before) {
    if (parent.moveBefore && node.isConnected && parent.isConnected) parent.moveBefore(node, before);
    else parent.insertBefore(node, before);
  }

  function focusable(element) {
    return element.matches("a[href], button, input, select, textarea, summary, [tabindex]");
  }

  // The place named, or what inside it asks for the focus ([data-focus]), else the first thing inside that takes it.
  function focusOn(element) {
    if (!element) return;
    const inside = element.querySelector("[data-focus], button:not([disabled]), input:not([type=hidden]), a[href]");
    const place = element.matches("a[href], button, input, select, textarea, li[tabindex]") ? element : inside || element;
    if (!focusable(place)) place.tabIndex = -1;
    place.focus();
  }

  // Keeps the focus through a redraw of `region`: back on the same element, its twin, or the nearest place that
  // takes it (a card), with the caret where it was.
  function keepingFocus(region, redraw) {
    const active = document.activeElement;
    const inside = active && active !== document.body && region.contains(active) ? active : null;
    const key = inside ? keyOf(inside) : null;
    const caret = inside && typeof inside.selectionStart === "number" ? [inside.selectionStart, inside.selectionEnd] : null;
    redraw();
    if (!inside || document.activeElement === inside) return;
    const twin = inside.isConnected ? inside : findByKey(region, key);
    if (twin) {
      twin.focus({ preventScroll: true });
      if (caret && twin.setSelectionRange) twin.setSelectionRange(caret[0], caret[1]);
    } else if (region.closest("[tabindex]")) region.closest("[tabindex]").focus(); // the card it was in
  }

  // --- how a region lands --------------------------------------------------------------------------------------------

  function older(incoming, there) {
    return incoming.dataset.v !== undefined && there.dataset.v !== undefined && +incoming.dataset.v < +there.dataset.v;
  }

  // What is inside becomes what the change drew. Every node that did not change stays the very same node (a link
  // being clicked, a field being typed in); only what differs is touched (morph). Where the children differ in kind
  // or number they are drawn anew — and still a form being typed in (or holding the focus) stays the same element,
  // and a field changed by hand (a resting box unticked) keeps what the person chose.
  function inner(region, incoming) {
    keepingFocus(region, () => {
      if (!morphChildren(region, incoming)) drawAnew(region, incoming);
    });
  }

  function morphChildren(old, fresh) {
    const before = Array.from(old.childNodes);
    const after = Array.from(fresh.childNodes);
    const alike = before.length === after.length && before.every((n, i) => n.nodeName === after[i].nodeName);
    if (!alike) return false;
    before.forEach((node, i) => {
      const next = after[i];
      if (node.isEqualNode(next)) return;
      if (node.nodeType !== Node.ELEMENT_NODE) node.nodeValue = next.nodeValue;
      else morph(node, next);
    });
    return true;
  }

  function morph(old, fresh) {
    Array.from(old.attributes).forEach(({ name }) => {
      const opened = name === "open" && old.tagName === "DETAILS"; // a QR code unfolded by hand stays unfolded
      if (!fresh.hasAttribute(name) && !opened) old.removeAttribute(name);
    });
    Array.from(fresh.attributes).forEach(({ name, value }) => {
      if (old.getAttribute(name) !== value) old.setAttribute(name, value);
    });
    if (!morphChildren(old, fresh)) drawAnew(old, fresh);
  }

  function drawAnew(region, incoming) {
    const active = document.activeElement;
    // Kept only where the new drawing still has it (a form whose check was answered elsewhere goes).
    const kept = Array.from(region.querySelectorAll("form[id]")).filter(
      (f) => (f.contains(active) || beingTyped(f)) && incoming.querySelector(`#${CSS.escape(f.id)}`),
    );
    const chosen = Array.from(region.querySelectorAll("input[id], select[id], textarea[id]"))
      .filter((field) => !kept.some((form) => form.contains(field)) && changedByHand(field))
      .map((field) => [field.id, field.type === "checkbox" || field.type === "radio" ? field.checked : field.value]);
    const old = Array.from(region.childNodes);
    Array.from(incoming.childNodes).forEach((node) => region.appendChild(node));
    kept.forEach((form) => {
      const twin = Array.from(region.querySelectorAll(`#${CSS.escape(form.id)}`)).find((e) => e !== form);
      if (twin) {
        moveBefore(twin.parentNode, form, twin);
        twin.remove();
      }
    });
    old.forEach((node) => {
      if (!kept.includes(node)) node.remove();
    });
    chosen.forEach(([id, value]) => {
      const field = region.querySelector(`#${CSS.escape(id)}`);
      if (!field) return;
      if (typeof value === "boolean") field.checked = value;
      else field.value = value;
    });
  }

  // Children of the same id are kept as they are (their forms, what is typed there), their own regions drawn again;
  // new ones come in, gone ones go, in the new order.
  function keyed(list, incoming) {
    keepingFocus(list, () => {
      const fresh = Array.from(incoming.children);
      const ids = new Set(fresh.map((child) => child.id).filter(Boolean));
      // The gone go first, so that the kept stay where they are: a child is moved only when the order changed.
      Array.from(list.childNodes).forEach((node) => {
        if (!node.id || !ids.has(node.id)) node.remove();
      });
      let cursor = list.firstElementChild;
      fresh.forEach((child) => {
        const there = child.id ? document.getElementById(child.id) : null;
        let node = child;
        if (there && there.parentNode === list) {
          child.querySelectorAll("[data-how]").forEach((region) => {
            const old = there.querySelector(`#${CSS.escape(region.id)}`);
            if (old) land(old, region);
          });
          node = there;
        }
        if (node === cursor) cursor = cursor.nextElementSibling;
        else moveBefore(list, node, cursor);
      });
    });
  }

  // A log: entries added in their place (newest first, by event id) or replaced (marked undone); the first page keeps
  // its length and its "Sucesos anteriores" (id'd), unless older pages were opened below it.
  function entries(list, incoming) {
    const more = list.querySelector(":scope > li.log-more[id]");
    Array.from(incoming.children).forEach((entry) => {
      if (entry.classList.contains("log-more")) {
        // Left alone while it says the same or its older page is on its way (a click just made).
        const same = more && more.innerHTML === entry.innerHTML;
        const asked = more && more.querySelector(".htmx-request");
        if (more && entry.id === more.id && !same && !asked && !older(entry, more)) more.replaceWith(entry);
        return;
      }
      if (entry.classList.contains("log-empty")) {
        if (!list.querySelector(":scope > li")) list.appendChild(entry);
        return;
      }
      const there = document.getElementById(entry.id);
      if (there) {
        if (!older(entry, there)) there.replaceWith(entry);
        return;
      }
      const newer = +entry.dataset.event;
      const before = Array.from(list.querySelectorAll(":scope > li.entry")).find((e) => +e.dataset.event < newer);
      if (before) list.insertBefore(entry, before);
      else if (more || !list.querySelector(":scope > li.entry")) list.insertBefore(entry, list.querySelector(":scope > li.log-more"));
      // else: older than every entry shown below opened pages: it belongs to a page not opened yet
    });
    if (list.querySelector(":scope > li.entry")) list.querySelectorAll(":scope > li.log-empty").forEach((e) => e.remove());
    const pageEnd = list.querySelector(":scope > li.log-more[id]");
    const length = +list.dataset.length;
    if (pageEnd && length) {
      Array.from(list.querySelectorAll(":scope > li.entry")).slice(length).forEach((e) => e.remove());
    }
  }

  // The element itself is replaced (the form an action came from, closed and drawn fresh).
  function outer(element, incoming) {
    const fresh = incoming.firstElementChild;
    if (!fresh) return;
    keepingFocus(element.parentNode, () => element.replaceWith(fresh));
  }

  function land(there, incoming) {
    const how = incoming.dataset.how || "inner";
    // A log's entries each carry their version: a change's own entries never hide behind a newer change's.
    if (how !== "entries" && older(incoming, there)) return;
    // What a person was told after their last answer (a die's result) is about the state this drawing replaces.
    const said = incoming.dataset.clears && document.getElementById(incoming.dataset.clears);
    if (said) said.textContent = "";
    if (how === "entries") return entries(there, incoming);
    if (how === "outer") return outer(there, incoming);
    if (how === "keyed") keyed(there, incoming);
    else inner(there, incoming);
    if (incoming.dataset.v !== undefined) there.dataset.v = incoming.dataset.v;
  }

  // A run of regions, from an answer or the stream: each where the page has its id (a region this page does not
  // show is skipped), then htmx wires up what came in. `typedOn`: the person typed on since their request left, so
  // the form it came from is not drawn afresh over what they are typing.
  // Then the page is told the newest campaign version drawn (twelveplus:drawn), for what is not a region but must
  // not fall behind one (a time skip's preview, static/js/table.js).
  function apply(html, typedOn) {
    const holder = document.createElement("template");
    holder.innerHTML = html;
    const drawn = Array.from(holder.content.children);
    drawn.forEach((incoming) => {
      const there = document.getElementById(incoming.id);
      if (!there || (typedOn && incoming.dataset.how === "outer")) return;
      const parent = there.parentNode;
      land(there, incoming);
      htmx.process(document.getElementById(incoming.id) || parent);
    });
    if (endNotice) disableControls(); // an answer that was on its way when the screen ended
    const version = Math.max(0, ...drawn.map((incoming) => +incoming.dataset.v || 0));
    if (version) document.dispatchEvent(new CustomEvent("twelveplus:drawn", { detail: { version } }));
  }

  // --- the answer to this tab's action ------------------------------------------------------------------------------

  // Keys pressed since a request left: if the person typed on meanwhile, its answer does not move the focus.
  let keys = 0;
  document.addEventListener("keydown", () => (keys += 1), true);
  document.addEventListener("htmx:beforeRequest", (event) => {
    event.detail.xhr.keysAtSend = keys;
    const active = document.activeElement;
    const from = event.detail.elt;
    if (active && from && from.contains && from.contains(active)) event.detail.xhr.sentFrom = keyOf(active);
  });

  // A form that says so (the quick damage) is emptied the moment it is sent, and what it said is sent exactly: a
  // number typed next is the next blow, even while this one is still on its way (its requests queue: hx-sync).
  document.addEventListener(
    "submit",
    (event) => {
      const form = event.target;
      if (!(form instanceof HTMLFormElement) || !form.hasAttribute("data-clear-on-send")) return;
      const typed = {};
      form.querySelectorAll("input[type=text]").forEach((field) => {
        typed[field.name] = field.value;
        field.value = "";
      });
      (form.typedQueue = form.typedQueue || []).push(typed);
    },
    true,
  );
  document.addEventListener("htmx:configRequest", (event) => {
    const form = event.detail.elt;
    if (form.typedQueue && form.typedQueue.length) Object.assign(event.detail.parameters, form.typedQueue.shift());
  });

  // The answer is read off the request itself, not from htmx's events on the element that sent it: a change that
  // arrived meanwhile may have drawn that element again (a button inside a region), and a detached element's events
  // reach no listener here. htmx's own swap of it is cancelled.
  document.addEventListener("htmx:beforeSend", (event) => {
    const xhr = event.detail.xhr;
    xhr.addEventListener("load", () => {
      if (!xhr.getResponseHeader("X-Regions")) return;
      const typedOn = keys !== xhr.keysAtSend;
      apply(xhr.responseText, typedOn);
      const focus = xhr.getResponseHeader("X-Focus");
      if (focus && !typedOn) focusOn(document.getElementById(focus));
    });
  });
  document.addEventListener("htmx:beforeSwap", (event) => {
    const xhr = event.detail.xhr;
    if (xhr && xhr.getResponseHeader("X-Regions")) event.detail.shouldSwap = false;
  });

  // Other answers that say where the keyboard goes next (a time skip's preview).
  document.addEventListener("htmx:afterRequest", (event) => {
    const xhr = event.detail.xhr;
    const focus = xhr && event.detail.successful && !xhr.getResponseHeader("X-Regions") && xhr.getResponseHeader("X-Focus");
    if (focus && keys === xhr.keysAtSend) focusOn(document.getElementById(focus));
  });

  // A form drawn again after a refusal: the keyboard goes to the first field the refusal is about. A refusal of the
  // whole form (the table changed since it was drawn: its new choices are there to read) leaves it where the GM sent
  // it from, when Enter there sends it again, else on its button: one Enter resends it. Fields of a kind not yet
  // filled in (the kind changed under them) come first.
  const RESENDS = "button[type=submit], input:not([type=hidden]):not([type=checkbox]):not([type=radio]), select:not([hx-get])";

  document.addEventListener("htmx:afterSettle", (event) => {
    const xhr = event.detail.xhr;
    if (!xhr || xhr.status !== 422 || keys !== xhr.keysAtSend) return;
    const root = event.detail.elt && event.detail.elt.isConnected ? event.detail.elt : event.target;
    if (!root.querySelector) return;
    const was = xhr.sentFrom ? findByKey(root, xhr.sentFrom) : null;
    const empty = Array.from(root.querySelectorAll("[data-kind] input:not([type=hidden])")).find((f) => f.value === "");
    const field =
      root.querySelector("[aria-invalid=true], .has-error input:not([type=hidden]), .has-error select") ||
      empty ||
      (was && was.matches(RESENDS) ? was : null) ||
      root.querySelector("button[type=submit]") ||
      root.querySelector("input:not([type=hidden]):not([type=checkbox]), select");
    if (field) field.focus();
  });

  // --- the live stream ------------------------------------------------------------------------------------------------

  // --- the end of a screen: it no longer follows its campaign, or its session ended ---------------------------------
  // Said in a notice fixed to the window (components/screen_end.html, base.html's #session-ended), seen wherever the
  // person is on the page; every control of the page is disabled, naming it (aria-describedby, title), and whatever
  // is tried still (a shortcut key, a request on its way) says it again instead of being sent.

  let endNotice = null;

  function ended(why) {
    if (why === "session" && window.twelveplus && window.twelveplus.sessionEnded) {
      window.twelveplus.sessionEnded();
      endNotice = document.getElementById("session-ended");
    } else {
      const notice = document.getElementById("screen-gone");
      if (!notice) return;
      const said = notice.querySelector(`[data-why="${why === "role" ? "role" : "gone"}"]`);
      notice.querySelectorAll("[data-why]").forEach((line) => (line.hidden = line !== said));
      const others = document.getElementById("not-found");
      if (others) others.hidden = true;
      notice.hidden = false;
      endNotice = notice;
    }
    document.body.dataset.ended = why;
    disableControls();
  }

  function reasonOf(notice) {
    const words = Array.from(notice.querySelectorAll("p:not([hidden])")).map((line) => {
      const copy = line.cloneNode(true);
      copy.querySelectorAll("a").forEach((link) => link.remove());
      return copy.textContent.trim();
    });
    return words.join(" ") || notice.textContent.trim();
  }

  function disableControls() {
    if (!endNotice) return;
    const reason = reasonOf(endNotice);
    document.querySelectorAll("main a[href], main button, main input, main select, main textarea").forEach((control) => {
      if (control.closest("[role=alert]") || control.type === "hidden") return; // the notices' own ways out
      if (control.matches("a")) {
        control.setAttribute("aria-disabled", "true");
        control.tabIndex = -1;
      } else control.disabled = true;
      const described = (control.getAttribute("aria-describedby") || "").split(" ").filter(Boolean);
      if (!described.includes(endNotice.id)) control.setAttribute("aria-describedby", [...described, endNotice.id].join(" "));
      control.title = reason;
    });
  }

  function sayEndedAgain() {
    endNotice.hidden = false;
    endNotice.tabIndex = -1;
    endNotice.focus({ preventScroll: true });
  }

  // Nothing more is sent from an ended screen: the notice says why instead (a shortcut's click, a link).
  document.addEventListener("htmx:beforeRequest", (event) => {
    if (!endNotice) return;
    event.preventDefault();
    sayEndedAgain();
  });
  document.addEventListener(
    "click",
    (event) => {
      const link = endNotice && event.target.closest && event.target.closest("main a[aria-disabled=true]");
      if (!link) return;
      event.preventDefault();
      event.stopPropagation();
      sayEndedAgain();
    },
    true,
  );

  // An action refused with 404 (static/js/site.js asks here first): the server says what this account is at the
  // campaign now (play.screens.answers.not_found, X-Standing); a screen drawn for a role it no longer holds ends, saying
  // why, rather than saying that something was removed in another tab. True when said here.
  window.twelveplus = window.twelveplus || {};
  window.twelveplus.refused = (xhr) => {
    if (endNotice) {
      sayEndedAgain();
      return true;
    }
    const standing = xhr.getResponseHeader("X-Standing");
    const notice = document.getElementById("screen-gone");
    if (!standing || !notice || standing === notice.dataset.as) return false;
    ended(standing === "none" ? "gone" : "role");
    return true;
  };

  document.addEventListener("htmx:sseBeforeMessage", (event) => {
    event.preventDefault(); // the extension's own swap is not used: each region lands by its own rule
    if (event.detail.type === "change" && !endNotice) apply(event.detail.data);
    else if (event.detail.type === "end") ended(event.detail.data);
    document.body.dataset.live = "yes"; // the screen follows its stream (what tests wait for)
  });
})();
