// What the customer portal reads of a customer's wallets; what a future credit feature writes.
export {
  countCustomerWallets,
  findCustomerWallet,
  insertWallet,
  insertWalletTransaction,
  listCustomerWallets,
} from "./wallets.repository.ts";
export { toCustomerWallet } from "./wallets.mapper.ts";
