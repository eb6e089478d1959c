/* The book's own script: explorers that answer without a kernel, and sidebars that open.
 *
 * 1. Static explorers (tutorlib/explorers/static.py). Each explorer output holds its controls
 *    (disabled until this script runs), the starting view, and every other view, packed as
 *    gzip + base64 JSON. Moving a control swaps in the stored view for the new state: the
 *    very HTML the live explorer shows in a kernel, made by the same Python function.
 *    The controls are native (Tab reaches each, the arrow keys move it); a status line says
 *    briefly what changed (the control's new value and the view's data-summary), so a screen
 *    reader does not read the whole table again. Boxes of the view that scroll sideways
 *    become tab stops, so a keyboard can scroll them (WCAG 2.1.1).
 * 2. Sidebar toggles. pydata-sphinx-theme 0.17 wires its click handler to the first
 *    .primary-toggle / .secondary-toggle of the page, a button in a header that
 *    sphinx-book-theme hides, so the visible buttons do nothing (pydata-sphinx-theme#2451,
 *    sphinx-book-theme#988). Here every visible toggle works: on a narrow screen it opens the
 *    theme's own drawer (by clicking the wired button); on a wide one it hides or shows the
 *    sidebar in place.
 * 3. The live translator (chapter 10, the front page): on a page with a
 *    <div class="tutorlib-live-translator">, the module assets/web/live.js is imported; it turns the
 *    div into a translator that runs in the browser. Other pages load nothing of it.
 * 4. Print. Every closed <details> (collapsed solutions and code) opens before the page is
 *    printed (beforeprint) and closes again after it, so paper shows them; course.css opens
 *    them in print too, where a browser (Chromium's page.pdf) fires no beforeprint.
 */
(function () {
  "use strict";
  const HERE = document.currentScript ? document.currentScript.src : location.href;

  // --- 1. static explorers --------------------------------------------------------------
  async function unpack(b64) {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return JSON.parse(await new Response(stream).text());
  }

  function readControl(el) {
    if (el.tagName === "FIELDSET") return Number(el.querySelector("input:checked").value);
    if (el.type === "checkbox") return el.checked ? 1 : 0;
    return Number(el.value); // range and select: the option's index
  }

  // A box that scrolls sideways and holds nothing focusable is a tab stop (the arrow keys
  // scroll it); one that no longer scrolls stops being one.
  const SCROLLERS = ".tutorlib-view div, .tutorlib-view table, .cell_output .output.text_html";
  function scrollersReachable(scope) {
    scope.querySelectorAll(SCROLLERS).forEach((box) => {
      const overflow = getComputedStyle(box).overflowX;
      const scrolls = (overflow === "auto" || overflow === "scroll") && box.scrollWidth > box.clientWidth + 1;
      const focusable = box.querySelector("a[href], button, input, select, textarea, [tabindex]");
      if (scrolls && !focusable && !box.hasAttribute("tabindex")) {
        box.setAttribute("tabindex", "0");
        box.setAttribute("role", "region");
        box.setAttribute("aria-label", "scrollable output (arrow keys scroll)");
        box.dataset.tlScroller = "1";
      } else if (!scrolls && box.dataset.tlScroller) {
        ["tabindex", "role", "aria-label", "data-tl-scroller"].forEach((a) => box.removeAttribute(a));
      }
    });
  }

  function controlText(el) {
    let value;
    if (el.tagName === "FIELDSET") value = el.querySelector("input:checked").parentElement.textContent;
    else if (el.type === "checkbox") value = el.checked ? "on" : "off";
    else if (el.type === "range") value = JSON.parse(el.dataset.labels)[Number(el.value)];
    else value = el.options[el.selectedIndex].textContent;
    return `${el.dataset.label}: ${value.trim()}`;
  }

  function summaryOf(view) {
    const said = view.querySelector("[data-summary]");
    if (said) return said.dataset.summary;
    const title = view.querySelector("caption, b");
    return title ? title.textContent.trim() : "";
  }

  async function setUpExplorer(root) {
    const data = JSON.parse(root.querySelector("script.tutorlib-states").textContent);
    const view = root.querySelector(".tutorlib-view");
    const controls = [...root.querySelectorAll("[data-control]")]
      .sort((a, b) => Number(a.dataset.control) - Number(b.dataset.control));
    let pages;
    try {
      if (typeof DecompressionStream === "undefined") throw new Error("no DecompressionStream");
      pages = await unpack(data.pages);
    } catch (err) {
      const note = document.createElement("p");
      note.className = "tutorlib-explorer-note";
      note.textContent = "This browser cannot unpack the explorer's views; open the notebook " +
        "in Colab or Binder (the rocket button) to move the controls.";
      root.prepend(note);
      return;
    }
    const status = root.querySelector(".tutorlib-announce");
    const redraw = (event) => {
      let key = 0;
      controls.forEach((el, i) => { key = key * data.sizes[i] + readControl(el); });
      view.innerHTML = pages[data.index[key]];
      controls.forEach((el) => {
        if (el.type === "range") {
          const labels = JSON.parse(el.dataset.labels);
          el.parentElement.querySelector("output").textContent = labels[Number(el.value)];
          el.setAttribute("aria-valuetext", labels[Number(el.value)]);
        }
      });
      const moved = event && event.target && event.target.closest("[data-control]");
      if (status && moved) {
        const text = `${controlText(moved)}. ${summaryOf(view)}`.slice(0, 200);
        if (status.textContent !== text) status.textContent = text;
      }
      scrollersReachable(root);
    };
    root.querySelectorAll("input, select").forEach((el) => {
      el.disabled = false;
      el.addEventListener("input", redraw);
      el.addEventListener("change", redraw);
    });
    root.dataset.ready = "true";
    scrollersReachable(root);
  }

  // --- 2. sidebar toggles ------------------------------------------------------------------
  const WIDE = window.matchMedia("(min-width: 960px)");

  function setUpToggles(kind) {
    const buttons = [...document.querySelectorAll(`.${kind}-toggle`)];
    const wired = buttons[0]; // the one pydata-sphinx-theme listens to
    const sidebar = document.getElementById(kind === "primary" ? "pst-primary-sidebar" : "pst-secondary-sidebar");
    if (!wired || !sidebar) return;
    buttons.slice(1).forEach((button) => {
      button.addEventListener("click", (event) => {
        event.preventDefault();
        event.stopPropagation();
        if (kind === "primary" && WIDE.matches) {
          const hidden = document.documentElement.classList.toggle("tutorlib-hide-primary");
          button.setAttribute("aria-expanded", String(!hidden));
        } else {
          wired.click(); // the theme moves the sidebar into its <dialog> and opens it
        }
      });
    });
  }

  function ready(fn) {
    if (document.readyState !== "loading") fn();
    else document.addEventListener("DOMContentLoaded", fn);
  }

  // --- 3. the live translator -------------------------------------------------------------
  function setUpLiveTranslators() {
    if (!document.querySelector(".tutorlib-live-translator")) return;
    import(new URL("web/live.js", HERE).href).catch((err) => {
      document.querySelectorAll(".tutorlib-live-translator").forEach((box) => {
        const note = document.createElement("p");
        note.textContent = `The live translator could not load in this browser (${err.message}).`;
        box.append(note);
      });
    });
  }

  // --- 4. print: collapsed solutions and code print open (Chromium also does it in CSS) ---
  window.addEventListener("beforeprint", () => {
    document.querySelectorAll("details:not([open])").forEach((d) => { d.dataset.printOpened = "1"; d.open = true; });
  });
  window.addEventListener("afterprint", () => {
    document.querySelectorAll("details[data-print-opened]").forEach((d) => { d.open = false; delete d.dataset.printOpened; });
  });

  ready(() => {
    document.querySelectorAll(".tutorlib-static-explorer").forEach((root) => { setUpExplorer(root); });
    setUpToggles("primary");
    setUpToggles("secondary");
    setUpLiveTranslators();
    scrollersReachable(document);
    let pending = null;
    window.addEventListener("resize", () => {
      clearTimeout(pending);
      pending = setTimeout(() => scrollersReachable(document), 150);
    });
  });
})();
