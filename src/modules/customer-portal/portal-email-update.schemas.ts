import { Type, type Static } from "@sinclair/typebox";

export const CustomerEmailUpdateRequest = Type.Object(
  { email: Type.String({ format: "email", maxLength: 320, description: "The new email address, where the verification link goes." }) },
  { title: "CustomerEmailUpdateRequest" },
);
export type CustomerEmailUpdateRequest = Static<typeof CustomerEmailUpdateRequest>;

/** Tokens are `polar_cev_` and 43 characters; anything far longer is no token. */
const token = Type.String({ maxLength: 200, description: "The token of the verification email." });

export const CustomerEmailUpdateCheckQuery = Type.Object({ token });
export type CustomerEmailUpdateCheckQuery = Static<typeof CustomerEmailUpdateCheckQuery>;

export const CustomerEmailUpdateVerifyRequest = Type.Object({ token }, { title: "CustomerEmailUpdateVerifyRequest" });
export type CustomerEmailUpdateVerifyRequest = Static<typeof CustomerEmailUpdateVerifyRequest>;

export const CustomerEmailUpdateVerifyResponse = Type.Object(
  { token: Type.String({ description: "A new customer portal session token, for the changed address." }) },
  { title: "CustomerEmailUpdateVerifyResponse" },
);
export type CustomerEmailUpdateVerifyResponse = Static<typeof CustomerEmailUpdateVerifyResponse>;
