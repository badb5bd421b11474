// Workflow editor: the definition is sent to the validator (the one `bin/mixdown workflow validate` uses)
// shortly after the operator stops typing, and its errors replace the list under the text.
const form = document.querySelector("form.editor");
const DEBOUNCE_MS = 350;

/** The validator's answer as the list the server renders on page load. */
function render(region, answer) {
  region.replaceChildren();
  const line = document.createElement("p");
  line.className = "validation";
  if (answer.valid) {
    line.classList.add("valid");
    const slug = document.createElement("code");
    slug.textContent = answer.slug;
    line.append("Valid workflow ", slug, ".");
    region.append(line);
    return;
  }
  line.textContent = `${answer.errors.length === 1 ? "1 error" : `${answer.errors.length} errors`}:`;
  const list = document.createElement("ul");
  list.className = "validation-errors";
  for (const error of answer.errors) {
    const item = document.createElement("li");
    const field = document.createElement("code");
    field.textContent = error.field;
    item.append(field, `: ${error.message}`);
    list.append(item);
  }
  region.append(line, list);
}

if (form) {
  const text = form.querySelector("#definition");
  const format = form.querySelector("#definition-format");
  const region = form.querySelector("#validation");
  let timer;
  let sent = 0;

  const validate = async () => {
    const mine = ++sent;
    try {
      const response = await fetch("/dashboard/workflow-editor/validate", {
        method: "POST",
        headers: { "content-type": "application/json", "x-csrf-token": form.dataset.csrf },
        body: JSON.stringify({ text: text.value, format: format.value }),
      });
      if (response.redirected || !response.ok) return; // signed out or refused: saving will say so
      const answer = await response.json();
      if (mine === sent) render(region, answer); // an older answer arriving late must not win
    } catch {
      // Offline for a moment: the next keystroke tries again, and saving validates on the server anyway.
    }
  };
  const later = () => {
    clearTimeout(timer);
    timer = setTimeout(validate, DEBOUNCE_MS);
  };
  text.addEventListener("input", later);
  format.addEventListener("change", validate);
  // Tab indents instead of leaving the field, except with Escape pressed just before (keyboard users).
  let escaped = false;
  text.addEventListener("keydown", (event) => {
    if (event.key === "Escape") escaped = true;
    else if (event.key === "Tab" && !escaped && !event.shiftKey) {
      event.preventDefault();
      text.setRangeText("  ", text.selectionStart, text.selectionEnd, "end");
      later();
    } else escaped = false;
  });
}
