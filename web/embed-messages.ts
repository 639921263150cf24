import { EMBED_MESSAGE_TYPE } from "../src/modules/checkout-page/checkout-page.data.ts";

/** The messages `@polar-sh/checkout`'s EmbedCheckout listens for. */
export type EmbedMessage =
  { event: "loaded" } | { event: "close" } | { event: "confirmed" } | { event: "success"; successURL: string; redirect: boolean };

export type PostToParent = (message: EmbedMessage) => void;

/**
 * Posts to the embedding window, addressed to the allowed origin only (the browser drops the
 * message if the parent is anything else); a page that is not embedded posts nothing.
 */
export function embedMessenger(origin: string | null): PostToParent {
  return (message) => {
    if (origin !== null && window.parent !== window) window.parent.postMessage({ ...message, type: EMBED_MESSAGE_TYPE }, origin);
  };
}

/** Buttons marked `data-action="close"` ask the embedding window to close the checkout. */
export function wireCloseButtons(root: ParentNode, post: PostToParent): void {
  for (const button of root.querySelectorAll<HTMLButtonElement>('[data-action="close"]')) {
    button.addEventListener("click", () => post({ event: "close" }));
  }
}
