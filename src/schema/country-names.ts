import { InputCountryCodes } from "./address.ts";

/** A country a billing address may name, with its English name. */
export interface CountryChoice {
  code: string;
  label: string;
}

let choices: readonly CountryChoice[] | null = null;

/**
 * The countries a billing address may name, by English name: computed once per process, so pages
 * neither build them per request nor make the browser do it (Intl's region names and collation are
 * a noticeable part of drawing a form).
 */
export function countryChoices(): readonly CountryChoice[] {
  if (choices) return choices;
  const names = new Intl.DisplayNames(["en"], { type: "region" });
  const collator = new Intl.Collator("en");
  choices = InputCountryCodes.map((code) => ({ code, label: names.of(code) ?? code })).sort((a, b) => collator.compare(a.label, b.label));
  return choices;
}
