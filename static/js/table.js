// The GM's table under the keyboard (docs/architecture.md principle 8). htmx does the requests; this file only moves focus,
// reads the shortcut keys, ticks group selections, shows the die fields of the ticked characters and copies links.
// No inline script anywhere (CSP): everything hangs off data attributes.
(function () {
  "use strict";

  let opener = null; // the link that opened the form now open: Escape returns focus to it
  let opened = null; // the form opened last: Escape closes it even when the focus is elsewhere

  function typing(target) {
    return target.closest("input, select, textarea, [contenteditable]") !== null;
  }

  function firstField(form) {
    // The field to type in first: one marked autofocus (the kind of a group's damage), else the first empty one
    // (checkboxes come ticked already), else the first of all.
    const marked = form.querySelector("[autofocus]");
    if (marked) return marked;
    const fields = form.querySelectorAll("input:not([type=hidden]):not([disabled]), select, textarea");
    for (const field of fields) {
      if (field.closest("[hidden]") || field.type === "checkbox") continue;
      if (form.dataset.filled === field.name) continue;
      if (field.value === "") return field;
    }
    return fields[0] || null;
  }

  // --- keys typed while a form opens --------------------------------------------------------------------------------
  // A form comes from the server (~60 ms), and the kind's fields after a kind is chosen: a GM who types on meanwhile
  // ("v", "c", "a", Enter, "3", Enter at 30 ms a key) has every key held, in order, and pressed again where the focus
  // goes once it is there, as if it had been there all along.

  let held = null; // { keys: [{ key, shiftKey }], since, form: the link whose form it waits for | select: whose fields }
  let kindFirstNext = false; // the form asked for next opens on its kind (the "d" key)
  const HOLD_MS = 3000; // a hold that long is lost (an answer that never came): keys go where the focus is again

  function hold(what) {
    held = { keys: [], since: performance.now(), ...what };
  }

  function release() {
    const keys = held ? held.keys : [];
    held = null;
    replay(keys);
  }

  document.addEventListener(
    "keydown",
    (event) => {
      if (!held || !event.isTrusted || event.altKey || event.ctrlKey || event.metaKey) return;
      if (["Shift", "Control", "Alt", "Meta", "CapsLock", "Dead"].includes(event.key)) return;
      if (performance.now() - held.since > HOLD_MS) {
        held = null;
        return;
      }
      event.preventDefault();
      event.stopImmediatePropagation();
      held.keys.push({ key: event.key, shiftKey: event.shiftKey });
    },
    true, // before any other handler of the page: the key waits, it does nothing now
  );

  // Keys pressed again, in order, where the focus is; a key that starts a new wait (Enter on a kind whose fields are
  // on their way) holds the rest.
  function replay(keys) {
    const rest = keys.slice();
    while (rest.length) {
      if (held) {
        held.keys.push(...rest);
        return;
      }
      const { key, shiftKey } = rest.shift();
      const target = document.activeElement || document.body;
      const down = new KeyboardEvent("keydown", { key, shiftKey: !!shiftKey, bubbles: true, cancelable: true });
      if (target.dispatchEvent(down)) pressedHere(target, key, !!shiftKey); // no handler of the page took it
    }
  }

  // What the browser itself does with a key (a synthetic event does none of it), for the fields of a form.
  function pressedHere(target, key, shiftKey) {
    const form = target.form || (target.closest && target.closest("form"));
    if (key === "Tab") return tabFrom(target, shiftKey);
    if (target.tagName === "SELECT") {
      if (key === "ArrowDown" || key === "ArrowUp") choose(target, target.selectedIndex + (key === "ArrowDown" ? 1 : -1));
      else if (key.length === 1) typeAhead(target, key);
      return;
    }
    if (target.tagName === "BUTTON" || target.tagName === "A") {
      if (key === "Enter" || (key === " " && target.tagName === "BUTTON")) target.click();
      return;
    }
    if (target.tagName !== "INPUT" && target.tagName !== "TEXTAREA") return;
    if (target.type === "checkbox" || target.type === "radio") {
      if (key === " ") target.click();
      else if (key === "Enter" && form) form.requestSubmit();
      return;
    }
    if (key === "Enter") {
      if (target.tagName === "INPUT" && form) form.requestSubmit();
      return;
    }
    const start = typeof target.selectionStart === "number" ? target.selectionStart : null;
    const end = start === null ? null : target.selectionEnd;
    if (key === "Backspace") {
      if (start === null) target.value = target.value.slice(0, -1);
      else target.setRangeText("", start === end ? Math.max(0, start - 1) : start, end, "end");
    } else if (key.length === 1) {
      if (start === null) target.value += key; // a number field has no caret to ask: the end
      else target.setRangeText(key, start, end, "end");
    } else return;
    target.dispatchEvent(new Event("input", { bubbles: true }));
  }

  function tabFrom(target, backwards) {
    const all = Array.from(
      document.querySelectorAll("a[href], button:not([disabled]), input:not([type=hidden]):not([disabled]), select, textarea"),
    ).filter((element) => element.tabIndex >= 0 && element.getClientRects().length);
    const next = all[all.indexOf(target) + (backwards ? -1 : 1)];
    if (next) next.focus();
  }

  function choose(select, index) {
    if (index < 0 || index >= select.options.length || index === select.selectedIndex) return;
    select.selectedIndex = index;
    select.dispatchEvent(new Event("input", { bubbles: true }));
    select.dispatchEvent(new Event("change", { bubbles: true }));
  }

  // Letters typed on a form's choice pick the first option they begin ("c", "a": Caída), one letter again and again
  // the next that begins with it — the browser's own way, done here for every letter, so that letters pressed again
  // after a wait go on from those typed before it (the browser would start again from the last one).
  const TYPE_AHEAD_MS = 1000;

  function plain(text) {
    return text.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase().trim();
  }

  function typeAhead(select, key) {
    const now = performance.now();
    const typed = select.typedAt && now - select.typedAt < TYPE_AHEAD_MS ? select.typed + key : key;
    select.typed = typed;
    select.typedAt = now;
    const search = plain(typed);
    const options = Array.from(select.options);
    const again = search.length > 1 && search.split("").every((letter) => letter === search[0]);
    const prefix = again ? search[0] : search;
    const from = search.length === 1 || again ? select.selectedIndex + 1 : select.selectedIndex;
    const order = [...options.slice(Math.max(0, from)), ...options.slice(0, Math.max(0, from))];
    const found = order.find((option) => !option.disabled && plain(option.text).startsWith(prefix));
    if (found) choose(select, found.index);
  }

  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey || event.key.length !== 1 || event.key === " ") return;
    const select = event.target.closest && event.target.closest("form.action-form select");
    if (!select || /^[0-9]$/.test(event.key)) return; // a digit on the kind starts its number (below)
    event.preventDefault();
    typeAhead(select, event.key);
  });

  // --- die fields only for the ticked characters; group selectors ------------------------------------------------

  function showDiceOfTicked(form) {
    form.querySelectorAll("[data-die-for]").forEach((die) => {
      const box = form.querySelector(`input[name=characters][value="${die.dataset.dieFor}"]`);
      die.hidden = box !== null && !box.checked;
    });
  }

  function prepare(root) {
    // A part of a form redrawn on its own (a damage kind's dice) needs its form's ticks too.
    const within = root.closest ? root.closest("form.action-form") : null;
    if (within) showDiceOfTicked(within);
    root.querySelectorAll("form.action-form").forEach(showDiceOfTicked);
  }

  document.addEventListener("change", (event) => {
    const form = event.target.closest("form.action-form");
    if (form && event.target.name === "characters") showDiceOfTicked(form);
  });

  document.addEventListener("click", (event) => {
    const select = event.target.closest("[data-select]");
    if (select) {
      const form = select.closest("form");
      form.querySelectorAll("input[name=characters]").forEach((box) => {
        const which = select.dataset.select;
        box.checked = which === "all" || (which === "living" && box.dataset.dead === undefined);
      });
      showDiceOfTicked(form);
      return;
    }
    const copy = event.target.closest("[data-copy]");
    if (copy) {
      const field = document.getElementById(copy.dataset.copy);
      field.select();
      if (navigator.clipboard) navigator.clipboard.writeText(field.value);
      copy.textContent = copy.dataset.copied;
    }
  });

  // --- focus: opening a form, after an action, Escape --------------------------------------------------------------

  document.addEventListener("htmx:beforeRequest", (event) => {
    if (event.detail.elt.matches("a[hx-get]")) opener = event.detail.elt;
    if (event.detail.elt.matches("a[hx-get][hx-target^='#slot-']") && !event.defaultPrevented) {
      hold({ form: event.detail.elt, kindFirst: kindFirstNext });
    }
    kindFirstNext = false;
  });

  // A form (or a kind's fields) that did not come: refused, the network (site.js says so). The keys held for it are
  // let go, not pressed elsewhere: an Enter meant for a form must not send another.
  document.addEventListener("htmx:afterRequest", (event) => {
    if (held && !event.detail.successful && (held.form || event.detail.elt === held.select)) held = null;
  });

  // A form just opened can be closed with Escape at once, before it settles and takes the focus.
  document.addEventListener("htmx:afterSwap", (event) => {
    const target = event.target;
    if (!target || !target.querySelector || !event.detail.requestConfig) return;
    if (event.detail.requestConfig.verb !== "get") return;
    opened = target.matches("form.action-form") ? target : target.querySelector("form.action-form") || opened;
  });

  // After settling: htmx wires up the new content then, so a key pressed at once reaches a live form.
  document.addEventListener("htmx:afterSettle", (event) => {
    // The element swapped in (after an outerHTML swap, detail.target is the old, detached one).
    const target = event.target;
    if (!target || !target.querySelectorAll) return;
    prepare(target.parentNode || target);
    if (target.matches(".kind-part[data-kind]")) {
      kindFieldsArrived(target);
      return;
    }
    const form = target.matches("form.action-form") ? target : target.querySelector("form.action-form");
    if (form && event.detail.requestConfig && event.detail.requestConfig.verb === "get") {
      opened = form;
      const kind = form.querySelector("select[data-kind-fields]");
      const typed = held && held.form ? held : null;
      if (typed) held = null;
      const field = typed && typed.kindFirst && kind ? kind : firstField(form);
      if (field) field.focus();
      if (typed) replay(typed.keys); // what was typed while it came, in order, as if it had been there
      if (kind) askForKindFields(kind); // a kind chosen while the form was on its way
    } else if (held && event.detail.requestConfig && held.form === event.detail.requestConfig.elt) {
      release(); // what came is no form: the keys go where the focus is
    }
  });

  // --- the kind of damage ------------------------------------------------------------------------------------------
  // Choosing a kind redraws only the fields under the select (htmx, the select's hx-get): the focus stays on the
  // select, so arrows and typed letters ("c", "a": Caída) move through the kinds without applying anything. The
  // fields' box names the kind it was drawn for (data-kind, and fields_for for the server, which refuses a
  // mismatch). Enter on the select goes to the kind's first field, once that kind's fields are there.


  function kindFieldsOf(select) {
    return document.getElementById(select.dataset.kindFields);
  }

  function kindIsShown(select) {
    const box = kindFieldsOf(select);
    return box !== null && box.dataset.kind === select.value;
  }

  function toKindField(select, keys) {
    const field = kindFieldsOf(select).querySelector("input:not([type=hidden]), select, textarea");
    if (!field) return;
    field.focus();
    replay(keys);
  }

  // A kind chosen before htmx listened (or whose answer was lost) has no request on its way: send one.
  function askForKindFields(select) {
    if (!kindIsShown(select) && !select.classList.contains("htmx-request")) {
      select.dispatchEvent(new Event("change", { bubbles: true }));
    }
  }

  // Every key typed from then on (the rest of the number, Enter to send it) waits with it, and goes to the field.
  function awaitKindFields(select, typed) {
    hold({ select, keys: typed ? [{ key: typed }] : [] });
    askForKindFields(select);
  }

  function kindFieldsArrived(box) {
    const form = box.closest("form");
    const select = form && form.querySelector("select[data-kind-fields]");
    if (!select || !held || select !== held.select || !kindIsShown(select)) return;
    const keys = held.keys;
    held = null;
    toKindField(select, keys);
  }

  // Enter on the kind goes to its first field, not a submit. A digit on it goes there too and starts the number (no
  // kind's name begins with one, and a select would take it as nothing, or as an option's place): "v", "g", "3",
  // Enter is a gas trap of 3 turns. Enter elsewhere in the form while the fields shown are another kind's does not
  // send it: it waits for the chosen kind's fields and goes to the first.
  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const digit = /^[0-9]$/.test(event.key);
    if (!digit && (event.key !== "Enter" || event.shiftKey)) return;
    const form = event.target.closest && event.target.closest("form.action-form");
    const select = form && form.querySelector("select[data-kind-fields]");
    if (!select || (digit && event.target !== select)) return;
    if (event.target.matches("button[type=button], a, textarea")) return;
    if (event.target !== select && kindIsShown(select)) return; // the form goes, as Enter always does
    event.preventDefault();
    const typed = digit ? event.key : "";
    if (kindIsShown(select)) toKindField(select, typed ? [{ key: typed }] : []);
    else awaitKindFields(select, typed);
  });

  // The server names what an action acted on (HX-Trigger-After-Settle): focus goes back there.
  document.body.addEventListener("twelveplus:focus", (event) => {
    const target = document.getElementById(event.detail.value);
    if (!target) return;
    const place = target.matches("input, button, a, select")
      ? target
      : target.querySelector("[data-focus], h3 a, button:not([disabled]), input:not([type=hidden])");
    (place || target).focus();
  });

  // The preview of a time skip: "Cancelar" or Escape inside it clears it and goes back to the duration field.
  function closePreview() {
    const panel = document.getElementById("advance-preview");
    if (panel) panel.innerHTML = "";
    const field = document.querySelector("#form-advance input[name=duration]");
    if (field) field.focus();
  }

  document.addEventListener("click", (event) => {
    if (event.target.closest && event.target.closest("[data-close-preview]")) closePreview();
  });

  // An open preview follows the table: it was made at one campaign version (its "Aplicar" sends it back, and is
  // refused if anything changed since), so a change drawn at a newer one asks for it again, with the same choices.
  // The new one takes its place and says why; the focus stays on "Aplicar" if it was there (the same id).
  let newest = 0; // the newest campaign version this page has drawn
  let askedAt = 0; // the version a preview was last asked for again at

  function previewFollows() {
    const form = document.querySelector("#advance-preview form");
    if (!form || +form.elements.version.value >= newest || askedAt >= newest) return;
    askedAt = newest;
    htmx.ajax("POST", form.getAttribute("hx-post"), { source: form, values: { redraw: "on" } });
  }

  document.addEventListener("twelveplus:drawn", (event) => {
    newest = Math.max(newest, event.detail.version);
    previewFollows();
  });

  // A preview landed (asked for again, or by the GM): the duration it shows is a good one, so a refusal of an earlier
  // try goes; and if the table moved on meanwhile, it is asked for once more.
  function clearRefusal() {
    const form = document.getElementById("form-advance");
    if (!form) return;
    form.querySelectorAll("[role=alert]").forEach((alert) => alert.remove());
    form.querySelectorAll(".has-error").forEach((field) => field.classList.remove("has-error"));
    form.querySelectorAll("[aria-invalid]").forEach((field) => field.removeAttribute("aria-invalid"));
  }

  document.addEventListener("htmx:afterSettle", (event) => {
    if (event.target.id !== "advance-preview") return;
    if (event.target.querySelector("form")) clearRefusal();
    askedAt = 0;
    previewFollows();
  });

  function closeForm(form) {
    const slot = form.parentNode;
    form.remove();
    // Back to the link that opened it, if it is still to be seen (a row's "Daño" folded away under "Más" is not).
    if (opener && document.body.contains(opener) && opener.getClientRects().length) opener.focus();
    else if (slot) (slot.closest(".card") || document.body).querySelector("h3 a, a").focus();
  }

  // --- keys --------------------------------------------------------------------------------------------------------

  function cardOf(element) {
    return element.closest ? element.closest(".card") : null;
  }

  // j / k (and ↓ / ↑ on a card): the next or the previous card, by its name; from outside the cards, the first or
  // the last.
  function toCard(from, step) {
    const cards = Array.from(document.querySelectorAll("#cards > li.card"));
    if (!cards.length) return false;
    const at = cards.indexOf(from);
    const next = at === -1 ? (step > 0 ? cards[0] : cards[cards.length - 1]) : cards[at + step];
    if (!next) return true; // the first or the last already: the key is still taken (no page scroll)
    (next.querySelector("h3 a") || next).focus();
    return true;
  }

  function clickIn(root, selector) {
    const element = root && root.querySelector(selector);
    if (element) element.click();
    return element !== null;
  }

  // Enter in a select that asks for it, or in an action form's select (the healer, the illness, the disease), sends
  // its form, as Enter in a text field does (a select alone does not). Not the kind of damage: Enter there goes to
  // the kind's fields, still to be filled in (above).
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" || event.altKey || event.ctrlKey || event.metaKey) return;
    const select =
      event.target.closest && event.target.closest("select[data-enter-submits], form.action-form select:not([hx-get])");
    if (!select || !select.form) return;
    event.preventDefault();
    select.form.requestSubmit();
  });

  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const focused = event.target.closest && event.target.closest("form.action-form");
    const form = focused || (opened && document.body.contains(opened) ? opened : null);
    if (event.key === "Escape" && event.target.closest && event.target.closest("#advance-preview")) {
      event.preventDefault();
      closePreview();
      return;
    }
    if (event.key === "Escape" && form) {
      event.preventDefault();
      closeForm(form);
      opened = null;
      return;
    }
    if (event.key === "Escape") {
      const help = document.getElementById("shortcuts");
      if (help && !help.hidden) {
        help.hidden = true;
        document.querySelector("[data-shortcuts]").focus();
      }
      return;
    }
    if (typing(event.target)) return;
    const card = cardOf(document.activeElement || document.body);
    if (/^[0-9]$/.test(event.key) && card) {
      // Quick damage: a digit typed on a card starts the number in its quick-damage box.
      const box = card.querySelector("[data-quick-damage]");
      if (box && !box.disabled) {
        event.preventDefault();
        box.focus();
        box.value = event.key;
      }
      return;
    }
    const keys = {
      d: () => {
        kindFirstNext = true; // from the keyboard, the kind first, as "v": "d", "c", "a" is a fall
        return clickIn(card, "[data-shortcut=damage]");
      },
      // Not what only the owner may undo, on a co-GM's table (play.screens.undo): the button is hidden there.
      u: () => clickIn(document, "#undo-form button[type=submit]:not([disabled]):not(.co-gm .owner-only)"),
      t: () => {
        const field = document.querySelector("#form-advance input[name=duration]");
        if (field) field.focus();
        return field !== null;
      },
      o: () => {
        // A row's details and actions, opened or closed from the keyboard; the focus stays on the row.
        const more = card && card.querySelector("details.row-more");
        if (more) more.open = !more.open;
        return more !== null;
      },
      j: () => toCard(card, 1),
      k: () => toCard(card, -1),
      ArrowDown: () => card !== null && toCard(card, 1),
      ArrowUp: () => card !== null && toCard(card, -1),
      v: () => clickIn(document, "[data-shortcut=party-damage]"),
      e: () => clickIn(document, "[data-shortcut=party-expose]"),
      "?": () => clickIn(document, "[data-shortcuts]"),
    };
    const action = keys[event.key];
    if (action && action()) event.preventDefault();
  });

  // "Ajustes de la campaña" at the top: the folded section at the bottom, opened and in view.
  document.addEventListener("click", (event) => {
    const link = event.target.closest("a[data-open]");
    const section = link && document.getElementById(link.dataset.open);
    if (!section) return;
    event.preventDefault();
    section.open = true;
    section.querySelector("summary").focus();
    section.scrollIntoView({ block: "start" });
  });

  document.addEventListener("click", (event) => {
    const toggle = event.target.closest("[data-shortcuts]");
    if (!toggle) return;
    const help = document.getElementById("shortcuts");
    help.hidden = !help.hidden;
    toggle.setAttribute("aria-expanded", String(!help.hidden));
    if (!help.hidden) help.focus();
  });

  document.addEventListener("DOMContentLoaded", () => prepare(document));
  if (document.readyState !== "loading") prepare(document);
})();
