// Copy buttons: <button data-copy="ID"> copies the value of the element with that id.
for (const button of document.querySelectorAll("button[data-copy]")) {
  button.addEventListener("click", async () => {
    const id = button.dataset.copy;
    const source = document.getElementById(id);
    const status = document.querySelector(`[data-copy-status="${id}"]`);
    if (!source) return;
    try {
      await navigator.clipboard.writeText(source.value ?? source.textContent ?? "");
      if (status) status.textContent = "Copied";
    } catch {
      // No clipboard access (an insecure origin): select the text so Ctrl+C works.
      source.select?.();
      if (status) status.textContent = "Selected: press Ctrl+C";
    }
  });
}
