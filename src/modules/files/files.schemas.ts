import { Type, type Static } from "@sinclair/typebox";
import { DateTime, Nullable, StringEnum, Uuid4 } from "../../schema/primitives.ts";
import { ListResource } from "../../schema/pagination.ts";

export const FileServiceTypeValues = ["downloadable", "product_media", "organization_avatar", "support_case_attachment"] as const;
export const FileServiceTypes = StringEnum(FileServiceTypeValues, { title: "FileServiceTypes" });
export type FileServiceType = Static<typeof FileServiceTypes>;

/** What every view of a file shows. */
const fileFields = {
  id: Uuid4({ description: "The ID of the object." }),
  organization_id: Uuid4(),
  name: Type.String(),
  path: Type.String(),
  mime_type: Type.String(),
  size: Type.Integer({ description: "Size in bytes." }),
  storage_version: Nullable(Type.String()),
  checksum_etag: Nullable(Type.String()),
  checksum_sha256_base64: Nullable(Type.String()),
  checksum_sha256_hex: Nullable(Type.String()),
  last_modified_at: Nullable(DateTime()),
  version: Nullable(Type.String()),
};

const readFields = <S extends FileServiceType>(service: S) => ({
  ...fileFields,
  service: Type.Literal<S>(service),
  is_uploaded: Type.Boolean(),
  created_at: DateTime(),
  size_readable: Type.String({ readOnly: true, description: "Human-readable size." }),
});

export const DownloadableFileRead = Type.Object(
  { ...readFields("downloadable"), flagged_malicious_at: Nullable(DateTime()) },
  { title: "DownloadableFileRead", description: "File to be associated with the downloadables benefit." },
);
export type DownloadableFileRead = Static<typeof DownloadableFileRead>;

export const ProductMediaFileRead = Type.Object(
  { ...readFields("product_media"), public_url: Type.String({ readOnly: true, description: "Public address of the media." }) },
  { title: "ProductMediaFileRead", description: "File used as a product media." },
);
export type ProductMediaFileRead = Static<typeof ProductMediaFileRead>;

export const OrganizationAvatarFileRead = Type.Object(
  { ...readFields("organization_avatar"), public_url: Type.String({ readOnly: true }) },
  { title: "OrganizationAvatarFileRead", description: "File to be used as an organization avatar." },
);
export type OrganizationAvatarFileRead = Static<typeof OrganizationAvatarFileRead>;

export const FileRead = Type.Union([DownloadableFileRead, ProductMediaFileRead, OrganizationAvatarFileRead], { title: "FileRead" });
export type FileRead = Static<typeof FileRead>;

export const ListResourceFileRead = ListResource(FileRead, { title: "ListResource[FileRead]" });

const S3FileUploadPart = Type.Object(
  {
    number: Type.Integer(),
    chunk_start: Type.Integer(),
    chunk_end: Type.Integer(),
    checksum_sha256_base64: Nullable(Type.String()),
    url: Type.String(),
    expires_at: DateTime(),
    headers: Type.Record(Type.String(), Type.String()),
  },
  { title: "S3FileUploadPart" },
);

/** The answer to opening an upload: the file, and where each part goes. */
export const FileUpload = Type.Object(
  {
    ...fileFields,
    upload: Type.Object(
      { id: Type.String(), path: Type.String(), parts: Type.Array(S3FileUploadPart) },
      { title: "S3FileUploadMultipart" },
    ),
    is_uploaded: Type.Boolean(),
    service: FileServiceTypes,
    size_readable: Type.String({ readOnly: true }),
  },
  { title: "FileUpload" },
);
export type FileUpload = Static<typeof FileUpload>;

/** A file as a customer downloads it: where, until when. */
export const FileDownload = Type.Object(
  {
    ...fileFields,
    download: Type.Object(
      { url: Type.String(), headers: Type.Record(Type.String(), Type.String()), expires_at: DateTime() },
      { title: "S3DownloadURL" },
    ),
    is_uploaded: Type.Boolean(),
    service: FileServiceTypes,
    size_readable: Type.String({ readOnly: true }),
  },
  { title: "FileDownload" },
);
export type FileDownload = Static<typeof FileDownload>;

export const DownloadableRead = Type.Object({ id: Uuid4(), benefit_id: Uuid4(), file: FileDownload }, { title: "DownloadableRead" });
export type DownloadableRead = Static<typeof DownloadableRead>;
export const ListResourceDownloadableRead = ListResource(DownloadableRead, { title: "ListResource[DownloadableRead]" });

/** A downloadables benefit's file, with how often and by how many customers it was downloaded. */
export const BenefitDownloadableFile = Type.Object(
  {
    ...DownloadableFileRead.properties,
    downloaders: Type.Integer({ description: "Customers who downloaded the file at least once." }),
    downloads: Type.Integer({ description: "Downloads of the file through the benefit." }),
  },
  { title: "BenefitDownloadableFile" },
);
export type BenefitDownloadableFile = Static<typeof BenefitDownloadableFile>;
export const ListResourceBenefitDownloadableFile = ListResource(BenefitDownloadableFile, {
  title: "ListResource[BenefitDownloadableFile]",
});
