// A deduction board played by clicks (web/pads.py): the keys type into the guess box,
// the tiles of the guess being entered cycle the mark another game gave (advice mode),
// the count buttons pick its counts; all of it writes into the same boxes a keyboard
// types into, and the server reads those boxes as before.
(function () {
  const form = document.getElementById("move");
  if (!form) return;
  const pad = JSON.parse(document.getElementById("pad-data").textContent);
  const guess = document.getElementById("guess");
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
  // the best guesses with their numbers, fetched from their own page and placed here
  // (asked again a few times while the server works them out for another board); a
  // click on one enters it
  const options = document.getElementById("options");
  function fetchOptions(tries) {
    fetch(options.dataset.src).then((r) => r.text()).then((text) => {
      const list = new DOMParser().parseFromString(text, "text/html").getElementById("options-list");
      if (!list) return;
      const ready = list.querySelector("#options-table");
      if (!ready && tries > 1) { setTimeout(() => fetchOptions(tries - 1), 1000); return; }
      options.replaceChildren(...list.childNodes);
      options.querySelectorAll("a.pick").forEach((a) => a.addEventListener("click", (e) => {
        e.preventDefault();
        guess.value = a.dataset.guess;
        show();
        guess.focus();
      }));
    });
  }
  if (options) fetchOptions(6);
  guess.addEventListener("input", show);
  show();
  guess.focus();
})();
