// Audio players: the page's <audio controls> element stays the player (labelled, keyboard-usable, and
// working without script); wavesurfer.js draws its waveform above it, clickable to seek.

import { styleNonce } from "./time.js";
import WaveSurfer from "./vendor/wavesurfer.esm.js";

for (const player of document.querySelectorAll("[data-player]")) {
  const audio = player.querySelector("audio");
  const container = player.querySelector("[data-waveform]");
  const surfer = WaveSurfer.create({
    container,
    media: audio,
    height: 96,
    waveColor: "#8aa4c8",
    progressColor: "#1f3a5f",
    cursorColor: "#b3261e",
    cursorWidth: 2,
    normalize: true,
    cspNonce: styleNonce,
    // Fetched with CORS: from the object store, its bucket must allow this origin (Mixdown sets that rule).
    fetchParams: { mode: "cors", credentials: "omit" },
  });
  surfer.on("ready", () => {
    container.dataset.drawn = "true";
  });
  surfer.on("error", (error) => {
    container.dataset.drawn = "false";
    const note = document.createElement("p");
    note.className = "hint";
    note.setAttribute("role", "status");
    note.textContent = `The waveform could not be drawn (${error?.message ?? error}); the player below still plays.`;
    container.replaceWith(note);
  });
}
