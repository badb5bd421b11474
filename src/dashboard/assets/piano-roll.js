// A piano roll of a job's notes (the notes JSON, or the notes of its MIDI file, read by the server): one
// rectangle a note, pitch upwards, time across; a playhead follows the job's audio, a click plays from there.
import { clock, follow, playFrom } from "./time.js";

const SVG = "http://www.w3.org/2000/svg";
const NAMES = ["C", "C♯", "D", "D♯", "E", "F", "F♯", "G", "G♯", "A", "A♯", "B"];
const noteName = (pitch) => `${NAMES[pitch % 12]}${Math.floor(pitch / 12) - 1}`;
const isBlackKey = (pitch) => [1, 3, 6, 8, 10].includes(pitch % 12);

function svg(tag, attributes, parent) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  parent.append(node);
  return node;
}

function draw(roll, notes, duration) {
  const low = Math.min(...notes.map((n) => n.pitch)) - 2;
  const high = Math.max(...notes.map((n) => n.pitch)) + 2;
  const rows = high - low + 1;
  const row = Math.max(4, Math.min(14, Math.floor(360 / rows)));
  const width = Math.max(300, roll.clientWidth);
  const height = rows * row;
  // Time runs across the full width, as in the waveform above; octave names sit over the rows' left end.
  const x = (seconds) => (width * seconds) / duration;
  const y = (pitch) => (high - pitch) * row;

  const picture = document.createElementNS(SVG, "svg");
  picture.setAttribute("viewBox", `0 0 ${width} ${height}`);
  picture.setAttribute("width", String(width));
  picture.setAttribute("height", String(height));
  picture.setAttribute("role", "img");
  picture.setAttribute(
    "aria-label",
    `Piano roll: ${notes.length} notes from ${noteName(low + 2)} to ${noteName(high - 2)}`,
  );
  for (let pitch = low; pitch <= high; pitch++)
    svg("rect", { class: isBlackKey(pitch) ? "row black" : "row", x: 0, y: y(pitch), width, height: row }, picture);
  // Over the rows (a label is taller than its row): each C, on its octave line.
  for (let pitch = Math.ceil(low / 12) * 12; pitch <= high; pitch += 12) {
    svg("line", { class: "octave", x1: 0, x2: width, y1: y(pitch) + row, y2: y(pitch) + row }, picture);
    svg("text", { class: "key-name", x: 4, y: y(pitch) + row - 2 }, picture).textContent = noteName(pitch);
  }
  for (const note of notes) {
    const rect = svg(
      "rect",
      {
        class: "note",
        x: x(note.start),
        y: y(note.pitch) + 0.5,
        width: Math.max(2, x(note.end) - x(note.start)),
        height: row - 1,
        "fill-opacity": (0.35 + (0.65 * Math.min(127, note.velocity)) / 127).toFixed(2),
      },
      picture,
    );
    svg("title", {}, rect).textContent =
      `${noteName(note.pitch)} at ${clock(note.start)}, ${(note.end - note.start).toFixed(2)} s`;
  }
  const playhead = svg("line", { class: "playhead", x1: 0, x2: 0, y1: 0, y2: height }, picture);
  roll.replaceChildren(picture);
  return {
    picture,
    update: (time) => {
      playhead.setAttribute("x1", String(x(time)));
      playhead.setAttribute("x2", String(x(time)));
    },
    timeAt: (clientX) => {
      const box = picture.getBoundingClientRect();
      return Math.max(0, ((clientX - box.left) / box.width) * duration);
    },
  };
}

for (const roll of document.querySelectorAll("[data-notes]")) {
  const notes = JSON.parse(roll.dataset.notes);
  const audio = document.getElementById("source-audio");
  const render = () => {
    const duration =
      audio && Number.isFinite(audio.duration) && audio.duration > 0
        ? audio.duration
        : Math.max(...notes.map((n) => n.end));
    const drawn = draw(roll, notes, duration);
    if (audio)
      drawn.picture.addEventListener("click", (event) => {
        playFrom(audio, drawn.timeAt(event.clientX));
      });
    drawn.update(audio?.currentTime ?? 0);
    return drawn;
  };
  let drawn = render();
  if (audio) {
    audio.addEventListener("loadedmetadata", () => (drawn = render()));
    follow(audio, (time) => drawn.update(time));
  }
  let width = roll.clientWidth;
  new ResizeObserver(() => {
    if (roll.clientWidth !== width) {
      width = roll.clientWidth;
      drawn = render();
    }
  }).observe(roll);
}
