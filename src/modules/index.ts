import type { Module } from "../engine/types.ts";
import { alignLyricsModule } from "./align-lyrics/index.ts";
import { audioToMidiModule } from "./audio-to-midi/index.ts";
import { convertModule } from "./convert/index.ts";
import { fetchModule } from "./fetch/index.ts";
import { loudnessModule } from "./loudness/index.ts";
import { loudnessNormalizeModule } from "./loudness-normalize/index.ts";
import { mixModule } from "./mix/index.ts";
import { musicAnalysisModule } from "./music-analysis/index.ts";
import { probeModule } from "./probe/index.ts";
import { spectrogramModule } from "./spectrogram/index.ts";
import { stems4Module } from "./stems-4/index.ts";
import { stemsDrumsModule } from "./stems-drums/index.ts";
import { stemsVocalsModule } from "./stems-vocals/index.ts";
import { transcribeModule } from "./transcribe/index.ts";
import { waveformModule } from "./waveform/index.ts";

/** Every processing module, by name. */
export const MODULES = new Map<string, Module>(
  [
    fetchModule,
    probeModule,
    convertModule,
    loudnessModule,
    loudnessNormalizeModule,
    waveformModule,
    spectrogramModule,
    mixModule,
    musicAnalysisModule,
    stemsDrumsModule,
    stemsVocalsModule,
    stems4Module,
    audioToMidiModule,
    transcribeModule,
    alignLyricsModule,
  ].map((m) => [m.name, m]),
);
