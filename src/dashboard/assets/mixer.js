// The stem mixer: every stem decoded into one AudioContext, a GainNode each into one master, all sources
// started at one currentTime so they stay sample-aligned; a fader, mute and solo per stem, one transport.

import { clock, styleNonce } from "./time.js";
import WaveSurfer from "./vendor/wavesurfer.esm.js";

const PEAKS_PER_STEM = 2000;
/** Gain changes glide over this time constant (seconds) instead of clicking. */
const GLIDE = 0.015;

/** Largest |sample| per bucket of the first channel: enough for a small waveform. */
function peaksOf(buffer) {
  const data = buffer.getChannelData(0);
  const size = Math.max(1, Math.floor(data.length / PEAKS_PER_STEM));
  const peaks = new Float32Array(Math.ceil(data.length / size));
  for (let i = 0; i < peaks.length; i++) {
    let peak = 0;
    for (let j = i * size; j < Math.min(data.length, (i + 1) * size); j++) peak = Math.max(peak, Math.abs(data[j]));
    peaks[i] = peak;
  }
  return peaks;
}

async function decode(context, url) {
  const response = await fetch(url, { mode: "cors", credentials: "omit" });
  if (!response.ok) throw new Error(`the file answered ${response.status}`);
  return context.decodeAudioData(await response.arrayBuffer());
}

async function mixer(section) {
  const play = section.querySelector("[data-play]");
  const position = section.querySelector("[data-position]");
  const time = section.querySelector("[data-time]");
  const status = section.querySelector("[data-status]");
  const context = new AudioContext();
  const master = context.createGain();
  master.connect(context.destination);
  status.textContent = "Loading the stems…";

  const channels = [...section.querySelectorAll(".channel")].map((element) => ({
    element,
    gain: context.createGain(),
    volume: element.querySelector("[data-volume]"),
    mute: element.querySelector("[data-mute]"),
    solo: element.querySelector("[data-solo]"),
    buffer: undefined,
    source: undefined,
  }));
  try {
    await Promise.all(
      channels.map(async (channel) => {
        channel.buffer = await decode(context, channel.element.dataset.src);
      }),
    );
  } catch (error) {
    status.textContent = `The stems could not be loaded (${error.message}); each can still be played or downloaded below.`;
    return;
  }
  const duration = Math.max(...channels.map((c) => c.buffer.duration));
  let offset = 0; // where playback (re)starts, seconds
  let startedAt = 0; // context time at which the position was 0
  let playing = false;
  const now = () => Math.min(duration, playing ? context.currentTime - startedAt : offset);

  const applyGains = () => {
    const soloing = channels.some((c) => c.solo.getAttribute("aria-pressed") === "true");
    for (const c of channels) {
      const audible =
        c.mute.getAttribute("aria-pressed") !== "true" && (!soloing || c.solo.getAttribute("aria-pressed") === "true");
      c.element.dataset.audible = String(audible);
      c.gain.gain.setTargetAtTime(audible ? Number(c.volume.value) : 0, context.currentTime, GLIDE);
    }
  };
  const stopSources = () => {
    for (const c of channels) {
      c.source?.stop();
      c.source?.disconnect();
      c.source = undefined;
    }
  };
  const start = (from) => {
    stopSources();
    const when = context.currentTime + 0.05;
    for (const c of channels) {
      c.source = context.createBufferSource();
      c.source.buffer = c.buffer;
      c.source.connect(c.gain);
      c.source.start(when, Math.min(from, c.buffer.duration));
    }
    startedAt = when - from;
    playing = true;
  };
  const surfers = channels.map((c) => {
    const surfer = WaveSurfer.create({
      container: c.element.querySelector("[data-stem-wave]"),
      peaks: [peaksOf(c.buffer)],
      duration,
      height: 40,
      waveColor: "#8aa4c8",
      progressColor: "#1f3a5f",
      cursorColor: "#b3261e",
      cspNonce: styleNonce,
    });
    surfer.on("interaction", (seconds) => seek(seconds));
    return surfer;
  });
  const show = () => {
    const t = now();
    position.value = String(t);
    time.textContent = `${clock(t)} / ${clock(duration)}`;
    for (const surfer of surfers) surfer.setTime(t);
  };
  const pause = (at = now()) => {
    stopSources();
    playing = false;
    offset = at;
    play.textContent = "Play";
    show();
  };
  const seek = (seconds) => {
    const to = Math.max(0, Math.min(duration, seconds));
    if (playing) start(to);
    else offset = to;
    show();
  };
  const tick = () => {
    if (!playing) return;
    if (now() >= duration) return pause(0);
    show();
    requestAnimationFrame(tick);
  };

  for (const c of channels) {
    c.gain.connect(master);
    c.element.querySelector("audio").hidden = true;
    c.element.querySelector(".stem-controls").hidden = false;
    c.volume.addEventListener("input", applyGains);
    for (const toggle of [c.mute, c.solo])
      toggle.addEventListener("click", () => {
        toggle.setAttribute("aria-pressed", String(toggle.getAttribute("aria-pressed") !== "true"));
        applyGains();
      });
  }
  applyGains();
  position.max = String(duration);
  position.disabled = false;
  position.addEventListener("input", () => seek(Number(position.value)));
  play.disabled = false;
  play.addEventListener("click", async () => {
    if (playing) return pause();
    await context.resume();
    start(offset >= duration ? 0 : offset);
    play.textContent = "Pause";
    requestAnimationFrame(tick);
  });
  status.textContent = `${channels.length} stems ready, in sync.`;
  section.dataset.ready = "true";
  show();
}

for (const section of document.querySelectorAll("[data-mixer]"))
  mixer(section).catch((error) => {
    // No Web Audio here, or it failed: the stems' own players below still work.
    section.querySelector("[data-status]").textContent = `The mixer cannot run in this browser (${error.message}).`;
  });
