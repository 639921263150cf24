/** The PNG or JPEG fetched from an organization's http(s) avatar URL, with the URL it came from. */
export interface OrganizationLogosTable {
  organization_id: string;
  /** The avatar URL the bytes were fetched from: drawn only while the organization's avatar URL is still this one. */
  source_url: string;
  content: Buffer;
  fetched_at: Date;
}
