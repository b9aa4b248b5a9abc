// A deduction board played by clicks (web/pads.py): the keys type into the guess box,
// the tiles of the guess being entered cycle the mark another game gave (advice mode),
// the count buttons pick its counts; all of it writes into the same boxes a keyboard
// types into, and the server reads those boxes as before. The best guesses and the
// review are pages of their own, placed on the board when they are ready.
(function () {
  const form = document.getElementById("move");
  const guess = document.getElementById("guess");

  // Place the list of the page at `section.dataset.src` (its element `id`) in `section`,
  // asking again each second (up to `tries` times) while it says it is not ready.
  function place(section, id, ready, tries, then) {
    fetch(section.dataset.src).then((r) => r.text()).then((text) => {
      const list = new DOMParser().parseFromString(text, "text/html").getElementById(id);
      if (!list) return;
      if (!list.querySelector(ready) && tries > 1) {
        setTimeout(() => place(section, id, ready, tries - 1, then), 1000);
        return;
      }
      section.replaceChildren(...list.childNodes);
      if (then) then(section);
    });
  }

  const review = document.getElementById("review");
  if (review) {
    const open = () => place(review, "review-list", ".final", 10);
    if (review.dataset.open) open();
    else document.getElementById("review-link").addEventListener("click", (e) => {
      e.preventDefault();
      open();
    });
  }

  if (!form) return;
  const pad = JSON.parse(document.getElementById("pad-data").textContent);
  const feedback = document.getElementById("feedback"); // only when advising
  const slots = Array.from(form.querySelectorAll("#entry .slot"));
  const keys = Array.from(form.querySelectorAll("#keys .key[data-symbol]"));
  const marks = slots.map(() => 0);
  const counts = [0, 0];
  let number = 0;

  function code() { return guess.value.trim(); }

  function feedbackText() {
    if (pad.marks.length) return marks.map((m) => pad.marks[m]).join("");
    if (pad.counts.length) return counts[0] + pad.counts[0] + counts[1] + pad.counts[1];
    return String(number);
  }

  function show() {
    const text = code();
    slots.forEach((slot, i) => {
      slot.textContent = text[i] || "";
      if (feedback && pad.marks.length) {
        slot.className = "tile slot cycles mark-" + pad.marks[marks[i]];
      } else if (form.dataset.colours) {
        slot.className = "tile slot" + (text[i] ? " c" + text[i] : "");
      }
    });
    if (pad.distinct) {
      const used = text.toLowerCase();
      keys.forEach((k) => { k.disabled = used.includes(k.dataset.symbol.toLowerCase()); });
    }
  }

  function write() { if (feedback) feedback.value = feedbackText(); }

  function type(symbol) {
    if (code().length >= pad.length) return;
    guess.value = code() + symbol;
    show();
  }

  keys.forEach((k) => k.addEventListener("click", () => type(k.dataset.symbol)));
  const back = document.getElementById("back");
  if (back) back.addEventListener("click", () => { guess.value = code().slice(0, -1); show(); });

  slots.forEach((slot, i) => slot.addEventListener("click", () => {
    if (!feedback || !pad.marks.length) return;
    marks[i] = (marks[i] + 1) % pad.marks.length;
    write();
    show();
  }));

  form.querySelectorAll("#counts .key").forEach((b) => b.addEventListener("click", () => {
    const n = Number(b.dataset.n);
    if (b.dataset.count !== undefined) counts[Number(b.dataset.count)] = n;
    else number = n;
    const row = b.parentElement;
    row.querySelectorAll(".key").forEach((o) => o.classList.toggle("on", o === b));
    write();
  }));

  if (feedback) {
    // typed feedback shows on the tiles as it is typed
    feedback.addEventListener("input", () => {
      if (!pad.marks.length) return;
      const text = feedback.value.trim().toUpperCase();
      slots.forEach((_, i) => {
        const m = pad.marks.indexOf(text[i]);
        marks[i] = m < 0 ? 0 : m;
      });
      show();
    });
    form.addEventListener("submit", () => { if (!feedback.value.trim()) write(); });
  }

  // the best guesses with their numbers; a click on one enters it. A list not final yet
  // (the rule of thumb's, or bounds still being worked out) is asked for again a little
  // later (up to `OPTIONS_ASKED` times): each time the server goes further.
  const OPTIONS_ASKED = 8;
  function placeOptions(section, asked) {
    place(section, "options-list", "#options-table", 6, (placed) => {
      placed.querySelectorAll("a.pick").forEach((a) => a.addEventListener("click", (e) => {
        e.preventDefault();
        guess.value = a.dataset.guess;
        show();
        guess.focus();
      }));
      sayValue(placed);
      if (!placed.querySelector("#options-label.final") && asked < OPTIONS_ASKED) {
        setTimeout(() => placeOptions(section, asked + 1), 1500);
      }
    });
  }
  const options = document.getElementById("options");
  if (options) placeOptions(options, 1);

  // the board's line says what the table's first row is (one advice for both: the
  // table, asked for later, may have found better)
  function sayValue(section) {
    const suggested = document.getElementById("suggestion");
    const said = document.getElementById("suggestion-note");
    const table = section.querySelector("#options-table");
    if (!suggested || !said || !table || !table.dataset.suggestion) return;
    suggested.textContent = table.dataset.suggestion;
    said.textContent = table.dataset.note;
  }
  guess.addEventListener("input", show);
  show();
  guess.focus();
})();
