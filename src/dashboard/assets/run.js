// Run page. Choosing an application or a workflow shows its form at once: the part of the page below the chooser
// is fetched from the server (the same HTML a reload would give) and swapped in. A file chosen or dropped on a file
// field is uploaded the way API clients do it: the page asks the server for a signed upload URL of the chosen
// application, PUTs the file there with a progress bar, and puts the file's download URL into the field. The job
// itself is created by the form's normal submission.

/** "3.2 MB" */
const size = (bytes) =>
  bytes < 1024 * 1024 ? `${Math.max(1, Math.round(bytes / 1024))} kB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** The reason in a refused PUT's answer: Mixdown's JSON message, or S3's XML <Message>. */
function refusal(xhr) {
  const text = xhr.responseText || "";
  try {
    const message = JSON.parse(text).message;
    if (message) return message;
  } catch {}
  const xml = /<Message>([^<]*)<\/Message>/.exec(text)?.[1] ?? /<Code>([^<]*)<\/Code>/.exec(text)?.[1];
  return `The file store refused the upload (${xhr.status}${xml ? `: ${xml}` : ""}).`;
}

/** PUTs the file to the signed URL, reporting progress from 0 to 1. */
function put(form, url, file, onProgress) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("PUT", url);
    xhr.setRequestHeader("content-type", file.type || "application/octet-stream");
    xhr.upload.addEventListener("progress", (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    });
    xhr.addEventListener("load", () =>
      xhr.status >= 200 && xhr.status < 300 ? resolve() : reject(new Error(refusal(xhr))),
    );
    xhr.addEventListener("error", () => {
      const home = form.dataset.publicOrigin;
      const hint =
        home && home !== window.location.origin
          ? ` Open the dashboard at ${home} (MIXDOWN_PUBLIC_URL): the store accepts uploads from pages there.`
          : "";
      reject(
        new Error(`The upload did not reach the file store (the network failed, or it refused this page).${hint}`),
      );
    });
    xhr.send(file);
  });
}

/** A signed upload URL for the application the form is for (the server also refuses a file that is not media). */
async function uploadUrl(form, file) {
  const response = await fetch("/dashboard/run/upload-url", {
    method: "POST",
    headers: { "content-type": "application/json", "x-csrf-token": form.dataset.csrf },
    body: JSON.stringify({ app: form.dataset.app, fileName: file.name, fileType: file.type }),
  });
  if (response.redirected) throw new Error("Your session has ended: sign in again in another tab, then retry.");
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(body.message ?? `The server gave no upload URL (${response.status}).`);
  return body;
}

/** Why the file is not taken (workflows take audio or video), as the server would say it; undefined when it is. */
function notMedia(form, file) {
  if (/^(audio|video)\//i.test(file.type)) return undefined;
  const extension = /\.([a-z0-9]+)$/i.exec(file.name)?.[1]?.toLowerCase();
  if (extension && form.dataset.mediaExtensions.split(" ").includes(extension)) return undefined;
  return `${file.name} is not an audio or video file (${file.type || "unknown type"}): choose an audio or video file.`;
}

/** Wires the upload zones of a run form (the one served with the page, or one swapped in). */
function bind(form) {
  const submit = form.querySelector(".run-submit");
  const name = form.querySelector("#job-name");
  let nameEdited = false;
  name?.addEventListener("input", () => {
    nameEdited = true;
  });
  let uploading = 0;

  for (const zone of form.querySelectorAll("[data-upload-for]")) {
    const target = document.getElementById(zone.dataset.uploadFor);
    const picker = zone.querySelector("input[type=file]");
    const status = zone.querySelector(".upload-status");
    const bar = zone.querySelector("progress");
    const percent = zone.querySelector(".upload-percent");
    const message = zone.querySelector(".upload-message");

    const show = (fraction) => {
      const value = Math.round(fraction * 100);
      bar.value = value;
      percent.textContent = `${value} %`;
    };

    const upload = async (file) => {
      const refused = notMedia(form, file);
      if (refused) {
        zone.classList.remove("done");
        zone.classList.add("failed");
        status.hidden = true;
        message.textContent = refused;
        picker.value = "";
        return;
      }
      uploading++;
      submit.disabled = true;
      zone.classList.remove("failed", "done");
      status.hidden = false;
      show(0);
      message.textContent = `Uploading ${file.name} (${size(file.size)})…`;
      try {
        const urls = await uploadUrl(form, file);
        await put(form, urls.uploadUrl, file, show);
        show(1);
        target.value = urls.downloadUrl;
        target.removeAttribute("aria-invalid");
        zone.classList.add("done");
        message.textContent = `Uploaded ${file.name} (${size(file.size)}); its URL is in the field below.`;
        if (name && !nameEdited) name.value = file.name;
      } catch (error) {
        zone.classList.add("failed");
        message.textContent = error.message;
      } finally {
        uploading--;
        submit.disabled = uploading > 0;
      }
    };

    picker.addEventListener("change", () => {
      if (picker.files?.[0]) void upload(picker.files[0]);
    });
    zone.addEventListener("dragover", (event) => {
      event.preventDefault();
      zone.classList.add("over");
    });
    zone.addEventListener("dragleave", () => zone.classList.remove("over"));
    zone.addEventListener("drop", (event) => {
      event.preventDefault();
      zone.classList.remove("over");
      const file = event.dataTransfer?.files?.[0];
      if (file) void upload(file);
    });
  }
}

const region = document.querySelector("[data-run-region]");
const chooser = document.querySelector("[data-chooser]");
const initial = document.querySelector("form.run-form");
if (initial) bind(initial);

if (chooser && region) {
  // With script the form follows the chooser; the button is for browsers without it.
  chooser.querySelector("[data-without-script]").hidden = true;
  const status = chooser.querySelector("[data-chooser-status]");
  let latest = 0;
  chooser.addEventListener("change", async () => {
    const query = new URLSearchParams(new FormData(chooser));
    const turn = ++latest;
    region.setAttribute("aria-busy", "true");
    try {
      const response = await fetch(`/dashboard/run?${query}&fragment=form`, { headers: { accept: "text/html" } });
      if (response.redirected) return window.location.reload(); // the session ended: sign in again
      if (!response.ok || turn !== latest) return;
      region.innerHTML = await response.text();
      history.replaceState(null, "", `/dashboard/run?${query}`);
      const form = region.querySelector("form.run-form");
      if (form) bind(form);
      status.textContent = form
        ? `The form of ${form.querySelector("h2")?.textContent ?? "the workflow"} is below.`
        : "";
    } catch {
      chooser.submit(); // the fetch failed: load the page the old way
    } finally {
      if (turn === latest) region.removeAttribute("aria-busy");
    }
  });
}

// A file dropped beside a drop zone would make the browser leave the page and lose the form.
for (const type of ["dragover", "drop"]) window.addEventListener(type, (event) => event.preventDefault());
