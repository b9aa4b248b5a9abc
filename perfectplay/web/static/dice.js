// Dice kept by clicks (Yahtzee, Yatzy): a click on a die holds it (or lets it go);
// "roll the others" follows the listed keep of the dice held (its data-keep: the faces
// kept, in increasing order), as a click on that keep would.
(function () {
  const dice = Array.from(document.querySelectorAll("#drawn svg.die"));
  const roll = document.getElementById("roll-kept");
  if (!roll || !dice.length) return;
  for (const die of dice) {
    die.dataset.keep = "";
    die.setAttribute("tabindex", "0");
    const flip = () => die.classList.toggle("held");
    die.addEventListener("click", flip);
    die.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); flip(); } });
  }
  roll.addEventListener("click", () => {
    const held = dice.filter((d) => d.classList.contains("held"))
      .map((d) => Number(d.dataset.value)).sort((a, b) => a - b).join(" ");
    const keep = Array.from(document.querySelectorAll("#choices a[data-keep]"))
      .find((a) => a.dataset.keep === held);
    if (keep) keep.click();
  });
})();
