// Transcript and word timings: a word plays the job's audio from where it was said, and the word being
// said is lit while it plays.
import { follow, playFrom } from "./time.js";

const audio = document.getElementById("source-audio");
const words = [...document.querySelectorAll(".transcript .word[data-start]")].map((button) => ({
  button,
  start: Number(button.dataset.start),
  end: Number(button.dataset.end),
}));

if (audio) {
  for (const { button, start } of words)
    button.addEventListener("click", () => {
      playFrom(audio, start);
    });
  let lit;
  follow(audio, (time) => {
    const current = words.find((w) => w.start <= time && time < Math.max(w.end, w.start + 0.05))?.button;
    if (current === lit) return;
    lit?.classList.remove("current");
    lit = current;
    lit?.classList.add("current");
  });
}
