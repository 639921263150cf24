import type { DocumentLanguage } from "../../documents/language.ts";
import { button, type EmailSection } from "./email-layout.ts";
import { wordsIn, type WordsByLanguage } from "./email-words.ts";

const LABEL: WordsByLanguage<string> = {
  en: "Go to the customer portal",
  fr: "Accéder à l'espace client",
  de: "Zum Kundenportal",
  ja: "カスタマーポータルへ",
};

/** The button to the organization's customer portal that ends a customer's email (the portal asks for a sign-in). */
export const portalButton = (language: DocumentLanguage, url: string): EmailSection => button(wordsIn(language, LABEL), url);
