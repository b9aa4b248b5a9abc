// Live progress of a solve: poll its status, reload the page when it ends.
(function () {
  const box = document.getElementById("progress");
  if (!box) return;
  const id = box.dataset.job;
  async function tick() {
    const r = await fetch("/api/jobs/" + id);
    const s = await r.json();
    if (s.state !== "running") { location.reload(); return; }
    document.getElementById("stage").textContent = s.stage + (s.unit ? " (" + s.unit + ")" : "");
    const bar = document.getElementById("bar");
    if (s.total) {
      bar.max = s.total; bar.value = s.done;
      document.getElementById("counts").textContent =
        Math.round(s.done).toLocaleString() + "/" + Math.round(s.total).toLocaleString();
    } else { bar.removeAttribute("value"); document.getElementById("counts").textContent = ""; }
    document.getElementById("info").textContent = s.info;
    document.getElementById("clock").textContent = s.seconds + " s";
    const left = document.getElementById("left");
    if (left) left.textContent = s.left === null ? "" : "about " + Math.ceil(s.left) + " s left";
    setTimeout(tick, 300);
  }
  tick();
})();
