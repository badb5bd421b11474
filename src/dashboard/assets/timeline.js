// The beat grid (downbeats marked, bars numbered), the chord labels and the song's sections, drawn under
// the waveform of the audio they were found in, with a playhead that follows it and the current spans lit.
import { clock, follow, playFrom } from "./time.js";

const MIN_LABEL_GAP_PX = 32;

function element(tag, className, parent) {
  const node = document.createElement(tag);
  node.className = className;
  parent.append(node);
  return node;
}

/** Seconds the data spans, when there is no audio to ask: the last span's end or one beat past the last beat. */
function dataDuration({ beats, chords, sections }) {
  const last = beats.at(-1);
  const beatEnd = last ? last.time + (beats.length > 1 ? (last.time - beats[0].time) / (beats.length - 1) : 1) : 0;
  return Math.max(beatEnd, chords.at(-1)?.end ?? 0, sections.at(-1)?.end ?? 0, 1);
}

function beatLane(tracks, beats, at, pixelsPerSecond) {
  const downbeats = beats.filter((b) => b.beatNum === 1);
  const lane = element("div", "beat-lane", tracks);
  lane.setAttribute("role", "img");
  lane.setAttribute("aria-label", `Beat grid: ${beats.length} beats, ${downbeats.length} downbeats`);
  const barWidth = downbeats.length > 1 ? (downbeats[1].time - downbeats[0].time) * pixelsPerSecond : 0;
  const labelEvery = barWidth > 0 ? Math.max(1, Math.ceil(MIN_LABEL_GAP_PX / barWidth)) : 1;
  let bar = 0;
  for (const beat of beats) {
    element("span", beat.beatNum === 1 ? "beat downbeat" : "beat", lane).style.left = at(beat.time);
    if (beat.beatNum === 1 && bar++ % labelEvery === 0) {
      const label = element("span", "bar-number", lane);
      label.style.left = at(beat.time);
      label.textContent = String(bar);
    }
  }
}

/** A lane of labelled spans (chords, sections); with audio each is a button that plays from its start. */
function spanLane(tracks, spans, { kind, name, label, className }, at, audio) {
  const lane = element("div", `span-lane ${kind}-lane`, tracks);
  lane.setAttribute("role", "group");
  lane.setAttribute("aria-label", name);
  return spans.map((span) => {
    const mark = element(audio ? "button" : "span", `${kind} ${className(span)}`.trim(), lane);
    mark.style.left = at(span.start);
    mark.style.width = `calc(${at(span.end - span.start)} - 1px)`;
    mark.textContent = label(span);
    mark.title = `${label(span)}, ${clock(span.start)}–${clock(span.end)}`;
    if (audio) {
      mark.type = "button";
      mark.setAttribute("aria-label", `${label(span)} at ${clock(span.start)}: play from here`);
      mark.addEventListener("click", () => playFrom(audio, span.start));
    }
    return mark;
  });
}

const CHORDS = {
  kind: "chord",
  name: "Chords",
  label: (span) => (span.chord === "N" ? "N.C." : span.chord),
  className: (span) => (span.chord === "N" ? "no-chord" : ""),
};
const SECTIONS = {
  kind: "section",
  name: "Sections",
  label: (span) => `Section ${span.label}`,
  className: () => "",
};

function draw(lanes, data, duration, audio) {
  const { beats, chords, sections } = data;
  lanes.replaceChildren();
  const tracks = element("div", "tracks", lanes);
  const at = (seconds) => `${(100 * Math.min(seconds, duration)) / duration}%`;
  if (beats.length > 0) beatLane(tracks, beats, at, lanes.clientWidth / duration);
  const lit = [
    [chords, chords.length > 0 ? spanLane(tracks, chords, CHORDS, at, audio) : []],
    [sections, sections.length > 0 ? spanLane(tracks, sections, SECTIONS, at, audio) : []],
  ];
  const playhead = element("div", "playhead", tracks);
  const now = element("p", "now", lanes);
  return (time) => {
    playhead.style.left = at(time);
    const current = lit.map(([spans, marks]) => {
      const index = spans.findIndex((span) => span.start <= time && time < span.end);
      for (const [i, mark] of marks.entries()) mark.classList.toggle("current", i === index);
      return spans[index];
    });
    const beatIndex = beats.findLastIndex((b) => b.time <= time);
    const bar = beats.slice(0, beatIndex + 1).filter((b) => b.beatNum === 1).length;
    now.textContent = [
      clock(time),
      beatIndex >= 0 ? `bar ${Math.max(1, bar)}, beat ${beats[beatIndex].beatNum}` : "",
      current[0] ? (current[0].chord === "N" ? "no chord" : current[0].chord) : "",
      current[1] ? `section ${current[1].label}` : "",
    ]
      .filter(Boolean)
      .join(" · ");
  };
}

for (const figure of document.querySelectorAll(".timeline")) {
  const lanes = figure.querySelector("[data-lanes]");
  const data = Object.fromEntries(
    ["beats", "chords", "sections"].map((name) => [name, JSON.parse(lanes.dataset[name] ?? "[]")]),
  );
  const audio = figure.querySelector("audio");
  const render = () => {
    const known = audio && Number.isFinite(audio.duration) && audio.duration > 0;
    const update = draw(lanes, data, known ? audio.duration : dataDuration(data), audio);
    update(audio?.currentTime ?? 0);
    return update;
  };
  let update = render();
  if (audio) {
    audio.addEventListener("loadedmetadata", () => (update = render()));
    follow(audio, (time) => update(time));
  }
  let width = lanes.clientWidth;
  new ResizeObserver(() => {
    if (lanes.clientWidth !== width) {
      width = lanes.clientWidth;
      update = render();
    }
  }).observe(lanes);
}
