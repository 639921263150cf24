// A value a seller copies (a checkout link, a portal link, a new token), shown read-only with a Copy button.
import { button, h } from "./ui.ts";

let copyCount = 0;

/** A value to copy (a link, a token): read-only, selectable, with a button that copies it and says so. */
export function copyable(label: string, value: string): HTMLElement {
  copyCount += 1;
  const id = `copy-${copyCount}`;
  // Not `field()`: a read-only value is not an optional input.
  const box = h("input", { id, type: "text", readonly: true, value, class: "copy-value", spellcheck: "false" });
  const status = h("span", { class: "copy-status", role: "status" });
  const copy = button("Copy", { class: "button button-quiet", "aria-label": `Copy ${label.toLowerCase()}` });
  copy.addEventListener("click", () => {
    box.select();
    void navigator.clipboard.writeText(value).then(
      () => (status.textContent = "Copied."),
      () => (status.textContent = "Selected: press Ctrl+C (⌘C) to copy."),
    );
  });
  return h("div", { class: "copyable field" }, h("label", { for: id }, label), box, h("p", {}, copy, " ", status));
}
