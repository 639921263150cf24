// Choosing among the organization's resources however many it has (a product for a checkout link or
// an orders filter, custom fields and benefits for a product): a search box that asks the list
// endpoint's `query` filter as the seller types and offers the matches in a listbox (the ARIA 1.2
// combobox: arrows move, Enter picks, Escape closes). What is chosen is listed below the box and
// stays chosen whatever the next search finds, so a choice is never limited to a first page.
import { list, type Query } from "./api.ts";
import { field, input, type Field } from "./forms.ts";
import { button, count, h } from "./ui.ts";

/** Matches shown at once: a search narrows, a longer list would only be scrolled. */
const MATCHES = 20;
/** Time after the last keystroke before the API is asked: one request per pause, not per letter. */
const DEBOUNCE_MS = 250;

export interface PickerOptions<T extends { id: string }> {
  label: string;
  hint?: string;
  /** The list endpoint searched (`products/`), with its `query` filter. */
  path: string;
  /** Its other filters (`is_archived: false`) and its sort. */
  filters?: Query;
  /** The resource's name in the counts: singular and plural. */
  noun: readonly [string, string];
  /** How an item reads, in the matches and among the chosen. */
  text: (item: T) => string;
  /** Several at once (in the order chosen), or one replacing the last. */
  multiple: boolean;
  chosen?: readonly T[];
  /** Controls shown beside a chosen item (a custom field's "required"). */
  detail?: (item: T) => Node | null;
  /** Called after every change of what is chosen. */
  changed?: (chosen: readonly T[]) => void;
}

export interface Picker<T> {
  /** The labelled box, its matches and the chosen items (its `error` shows the API's refusal). */
  field: Field;
  chosen(): T[];
  /** Adds an item from elsewhere (one just created), as if picked. */
  choose(item: T): void;
}

let pickerCount = 0;

export function picker<T extends { id: string }>(options: PickerOptions<T>): Picker<T> {
  pickerCount += 1;
  const id = `picker-${pickerCount}`;
  const [one, many] = options.noun;
  const chosen = new Map<string, T>((options.chosen ?? []).map((item) => [item.id, item]));
  const box = input({
    type: "text",
    role: "combobox",
    autocomplete: "off",
    spellcheck: "false",
    maxlength: "256",
    "aria-autocomplete": "list",
    "aria-expanded": "false",
    "aria-controls": `${id}-matches`,
  });
  const listbox = h("ul", {
    id: `${id}-matches`,
    role: "listbox",
    class: "picker-matches",
    "aria-label": `Matching ${many}`,
    "aria-multiselectable": options.multiple ? "true" : null,
    hidden: true,
  });
  const status = h("p", { id: `${id}-status`, class: "hint picker-status", role: "status" });
  const chosenList = h("ul", { class: "picker-chosen", "aria-label": `Chosen ${many}` });
  const made = field(options.label, box, options.hint);
  // The label names what is picked: never "(optional)"; a required choice is checked by its form.
  made.show(true, true);
  box.required = false;
  made.wrapper.classList.add("picker-field");
  // The count of matches is read with the box when it is reached again, not only when it changes.
  box.setAttribute("aria-describedby", `${box.getAttribute("aria-describedby") ?? ""} ${status.id}`.trim());
  // The count under the box, then the matches over what follows: in the page's flow, their closing on
  // blur would move the button being clicked from under the pointer.
  made.control.after(status, h("div", { class: "picker" }, listbox), chosenList);

  let matches: T[] = [];
  let active = -1;
  let asked = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const renderChosen = () => {
    chosenList.replaceChildren(
      ...[...chosen.values()].map((item) => {
        const remove = button("Remove", { class: "button button-quiet", "aria-label": `Remove ${options.text(item)}` });
        remove.addEventListener("click", () => {
          chosen.delete(item.id);
          renderChosen();
          options.changed?.([...chosen.values()]);
          box.focus();
        });
        return h("li", {}, h("span", { class: "picker-chosen-text" }, options.text(item)), options.detail?.(item) ?? null, remove);
      }),
    );
    chosenList.hidden = chosen.size === 0;
  };

  const close = () => {
    listbox.hidden = true;
    box.setAttribute("aria-expanded", "false");
    box.removeAttribute("aria-activedescendant");
    active = -1;
  };

  const highlight = (index: number) => {
    active = index;
    for (const [position, option] of [...listbox.children].entries()) option.classList.toggle("active", position === index);
    const option = listbox.children[index];
    if (option) {
      box.setAttribute("aria-activedescendant", option.id);
      option.scrollIntoView({ block: "nearest" });
    } else box.removeAttribute("aria-activedescendant");
  };

  const renderMatches = (keep = -1) => {
    listbox.replaceChildren(
      ...matches.map((item, index) => {
        const option = h(
          "li",
          { id: `${id}-option-${index}`, role: "option", "aria-selected": chosen.has(item.id) ? "true" : "false" },
          options.text(item),
        );
        // Picked on mousedown, before the box loses focus (which closes the list).
        option.addEventListener("mousedown", (event) => {
          event.preventDefault();
          pick(item);
        });
        return option;
      }),
    );
    listbox.hidden = matches.length === 0;
    box.setAttribute("aria-expanded", String(matches.length > 0));
    highlight(keep);
  };

  function pick(item: T): void {
    if (options.multiple && chosen.has(item.id)) chosen.delete(item.id);
    else {
      if (!options.multiple) chosen.clear();
      chosen.set(item.id, item);
    }
    renderChosen();
    options.changed?.([...chosen.values()]);
    if (options.multiple) return renderMatches(active);
    box.value = "";
    matches = [];
    close();
    status.textContent = `${options.text(item)} chosen.`;
  }

  const search = async () => {
    const text = box.value.trim();
    const current = (asked += 1);
    status.textContent = "Searching…";
    const answer = await list<T>(options.path, { ...options.filters, query: text, limit: MATCHES });
    // The seller typed on, or left the box, meanwhile: a later answer owns the list, or none is wanted.
    if (current !== asked) return;
    if (!answer.ok) {
      matches = [];
      renderMatches();
      status.textContent = answer.error.message;
      return;
    }
    matches = answer.body.items;
    renderMatches();
    const total = answer.body.pagination.total_count;
    const found = `${count(total)} ${total === 1 ? one : many}${text ? ` ${total === 1 ? "matches" : "match"} “${text}”` : ""}`;
    if (total === 0) status.textContent = text ? `No ${one} matches “${text}”.` : `No ${many} yet.`;
    else if (total > matches.length) status.textContent = `${found}; the first ${count(matches.length)} are listed. Type more to narrow.`;
    else status.textContent = `${found}.`;
  };

  const searchSoon = () => {
    clearTimeout(timer);
    timer = setTimeout(() => void search(), DEBOUNCE_MS);
  };

  box.addEventListener("input", searchSoon);
  box.addEventListener("click", () => {
    if (listbox.hidden) void search();
  });
  box.addEventListener("blur", () => {
    clearTimeout(timer);
    asked += 1;
    close();
  });
  box.addEventListener("keydown", (event) => {
    const open = !listbox.hidden;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      if (!open) return void search();
      const step = event.key === "ArrowDown" ? 1 : -1;
      highlight((active + step + matches.length) % matches.length);
    } else if (event.key === "Enter" && open) {
      // Enter picks the highlighted match; it never submits the form from an open list.
      event.preventDefault();
      const item = matches[active];
      if (item) pick(item);
    } else if (event.key === "Escape") {
      if (open) {
        event.preventDefault();
        close();
      } else box.value = "";
    }
  });
  renderChosen();

  return {
    field: made,
    chosen: () => [...chosen.values()],
    choose: (item) => {
      if (!options.multiple) chosen.clear();
      chosen.set(item.id, item);
      renderChosen();
      options.changed?.([...chosen.values()]);
    },
  };
}
