// Shared by the result views: times as people read them, and the page's CSP nonce for library styles.

/** "1:05.3": a time in a recording, to the tenth of a second (the server prints the same). */
export function clock(seconds) {
  const tenths = Math.round(Math.max(0, seconds) * 10);
  return `${Math.floor(tenths / 600)}:${((tenths % 600) / 10).toFixed(1).padStart(4, "0")}`;
}

/** The nonce this response's CSP gives <style> elements (wavesurfer.js styles its shadow root with one). */
export const styleNonce = document.querySelector("[data-style-nonce]")?.dataset.styleNonce ?? "";

/** Calls `frame(time)` on every animation frame while `audio` plays, and once after each seek or pause. */
export function follow(audio, frame) {
  let running = false;
  const tick = () => {
    frame(audio.currentTime);
    if (running) requestAnimationFrame(tick);
  };
  audio.addEventListener("play", () => {
    running = true;
    requestAnimationFrame(tick);
  });
  for (const event of ["pause", "ended"]) audio.addEventListener(event, () => (running = false));
  for (const event of ["pause", "seeked", "loadedmetadata"])
    audio.addEventListener(event, () => frame(audio.currentTime));
}

/** Plays `audio` from `seconds`; a play cut short by a pause (the person clicked on) is not an error. */
export function playFrom(audio, seconds) {
  audio.currentTime = seconds;
  audio.play().catch((error) => {
    if (error.name !== "AbortError") throw error;
  });
}
