import type { Deps } from "../../context.ts";
import type { Executor } from "../../db/database.ts";
import type { EmailConfig } from "../../email-config.ts";
import type { OrganizationRow } from "../organizations/organizations.table.ts";
import type { RenderedEmail } from "./email-layout.ts";
import { recordEmail, type EmailingOrganization, type SellerNotificationSetting } from "./emails.steps.ts";
import { renderDisputeOpened, renderWebhookEndpointDisabled, type DisputeOpened, type SellerAddress } from "./seller-notices.email.ts";

// What the emails module offers for the seller's notices: each written in its cause's transaction
// to the organization's contact address (none when it has none).

export {
  pricePerPeriod,
  renderDisputeOpened,
  renderNewSale,
  renderNewSubscriber,
  renderSubscriptionCanceled,
  renderWebhookEndpointDisabled,
} from "./seller-notices.email.ts";

type NoticeOrganization = EmailingOrganization & Pick<OrganizationRow, "avatar_url">;

/**
 * Writes a notice to the seller in the caller's transaction, rendered for its address; nothing when
 * the organization has no `email`, switched the notice's `setting` off, or the cause (`dedupeKey`)
 * was noticed already. Returns the email's id.
 */
export async function writeSellerNotice(
  db: Executor,
  config: EmailConfig,
  notice: {
    organization: NoticeOrganization;
    template: string;
    setting: SellerNotificationSetting;
    dedupeKey: string;
    render: (to: SellerAddress) => RenderedEmail;
    now: Date;
  },
): Promise<string | null> {
  const { organization } = notice;
  if (!organization.email) return null;
  return recordEmail(db, config, {
    organization,
    audience: { to: "seller", kind: "notice", setting: notice.setting },
    dedupeKey: notice.dedupeKey,
    template: notice.template,
    // The seller's language is not known: English (docs/decisions.md, "Emails to the seller").
    locale: null,
    recipient: organization.email,
    rendered: notice.render({ organization: { name: organization.name, logoUrl: organization.avatar_url }, recipient: organization.email }),
    now: notice.now,
  });
}

/**
 * `webhook_endpoint_disabled`, written in the transaction that disables the endpoint: one per
 * disabling (the endpoint and the instant name it); switched by `webhook_endpoint_disabled` (an
 * extension: the hosted service always sends it).
 */
export function writeWebhookEndpointDisabledEmail(
  db: Executor,
  deps: Pick<Deps, "config">,
  disabled: { organization: NoticeOrganization; endpoint: { id: string; url: string }; now: Date },
): Promise<string | null> {
  const { organization, endpoint, now } = disabled;
  return writeSellerNotice(db, deps.config.email, {
    organization,
    template: "webhook_endpoint_disabled",
    setting: "webhook_endpoint_disabled",
    dedupeKey: `webhook_endpoint_disabled:${endpoint.id}:${now.toISOString()}`,
    render: (to) => renderWebhookEndpointDisabled({ ...to, endpointUrl: endpoint.url }),
    now,
  });
}

/**
 * `seller_dispute_opened`, written in the transaction that records the dispute's first event: one
 * per dispute; switched by `dispute_opened` (an extension: the hosted service sends no such notice).
 */
export function writeDisputeOpenedEmail(
  db: Executor,
  config: EmailConfig,
  opened: Omit<DisputeOpened, keyof SellerAddress> & { organization: NoticeOrganization; disputeId: string; now: Date },
): Promise<string | null> {
  const { organization, disputeId, now, ...dispute } = opened;
  return writeSellerNotice(db, config, {
    organization,
    template: "seller_dispute_opened",
    setting: "dispute_opened",
    dedupeKey: `seller_dispute_opened:${disputeId}`,
    render: (to) => renderDisputeOpened({ ...to, ...dispute }),
    now,
  });
}
