import { Type, type Static } from "@sinclair/typebox";
import { ListResource, PaginationQuery, SortingQuery } from "../../schema/pagination.ts";
import { DateTime, Nullable, Uuid4 } from "../../schema/primitives.ts";

export const WalletSortKeys = ["created_at", "balance"] as const;
export type WalletSortKey = (typeof WalletSortKeys)[number];

export const CustomerWallet = Type.Object(
  {
    id: Uuid4({ description: "The ID of the object." }),
    created_at: DateTime({ description: "Creation timestamp of the object." }),
    modified_at: Nullable(DateTime(), { description: "Last modification timestamp of the object." }),
    customer_id: Uuid4({ description: "The ID of the customer that owns the wallet." }),
    balance: Type.Integer({ description: "The current balance of the wallet, in cents." }),
    currency: Type.String({ description: "The currency of the wallet." }),
  },
  {
    title: "CustomerWallet",
    description:
      "A wallet represents your balance with an organization.\n\nYou can top-up your wallet and use the balance to pay for usage.",
  },
);
export type CustomerWallet = Static<typeof CustomerWallet>;

export const ListResourceCustomerWallet = ListResource(CustomerWallet, { title: "ListResource[CustomerWallet]" });
export type ListResourceCustomerWallet = Static<typeof ListResourceCustomerWallet>;

export const CustomerWalletListQuery = Type.Object({
  ...PaginationQuery,
  sorting: SortingQuery(WalletSortKeys, ["-created_at"], { title: "CustomerWalletSortProperty", maxItems: 20 }),
});
export type CustomerWalletListQuery = Static<typeof CustomerWalletListQuery>;
