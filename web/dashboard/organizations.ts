// Switching organization (an owner's token sees several): the list the token sees, each a button that
// makes it the session's organization.
import { list, sessionPost } from "./api.ts";
import type { PageContext } from "./router.ts";
import { button, errorNotice, fill, h, loading, notice, pageHeading } from "./ui.ts";

export async function organizationsPage({ main, data }: PageContext): Promise<void> {
  const results = h("div", { "aria-live": "polite" }, loading());
  fill(main, pageHeading("Switch organization"), results);
  const answer = await list<{ id: string; name: string }>("organizations/", { organization_id: null, limit: 100, sorting: "name" });
  if (!answer.ok) return fill(results, errorNotice(answer.error));
  const items = answer.body.items.map((organization) => {
    const current = organization.id === data.organization.id;
    const choose = button(current ? `${organization.name} (current)` : organization.name, { disabled: current });
    choose.addEventListener("click", () => {
      void sessionPost("session/organization", { organization_id: organization.id }).then((response) => {
        if (response.ok) window.location.assign("/dashboard/");
        else fill(results, notice("error", "This organization cannot be opened with this token."));
      });
    });
    return h("li", {}, choose);
  });
  fill(results, h("ul", { class: "choices" }, ...items));
}
