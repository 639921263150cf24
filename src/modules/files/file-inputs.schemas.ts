import { Type, type Static } from "@sinclair/typebox";
import { OneOrMany, PaginationQuery } from "../../schema/pagination.ts";
import { Nullable, Uuid4 } from "../../schema/primitives.ts";

/** A SHA-256 digest in base64: 32 bytes, 44 characters with its padding. */
const Sha256Base64 = Type.String({ pattern: "^[A-Za-z0-9+/]{43}=$", description: "SHA-256 digest, base64." });

/** The most parts one upload may have (S3's limit). */
export const MAX_UPLOAD_PARTS = 10_000;

const S3FileCreatePart = Type.Object(
  {
    number: Type.Integer({ minimum: 1, maximum: MAX_UPLOAD_PARTS }),
    chunk_start: Type.Integer({ minimum: 0 }),
    chunk_end: Type.Integer({ minimum: 1, description: "End of the chunk, exclusive." }),
    checksum_sha256_base64: Type.Optional(Nullable(Sha256Base64)),
  },
  { title: "S3FileCreatePart" },
);

const S3FileCreateMultipart = Type.Object(
  { parts: Type.Array(S3FileCreatePart, { minItems: 1, maxItems: MAX_UPLOAD_PARTS }) },
  { title: "S3FileCreateMultipart" },
);

/** Images a product or an organization may show (the hosted service's rule). */
const ImageMimeType = Type.String({ pattern: "^image\\/(jpeg|png|gif|webp|svg\\+xml)$" });

/** Downloadables have no limit at the hosted service; this one is ours (docs/decisions.md). */
export const MAX_DOWNLOADABLE_SIZE = 10 * 1024 ** 3;

const fileCreate = <S extends string>(title: string, service: S, mimeType: ReturnType<typeof Type.String>, maxSize: number) =>
  Type.Object(
    {
      organization_id: Type.Optional(Nullable(Uuid4())),
      name: Type.String({ minLength: 1, maxLength: 255 }),
      mime_type: mimeType,
      size: Type.Integer({ minimum: 1, maximum: maxSize }),
      checksum_sha256_base64: Type.Optional(Nullable(Sha256Base64)),
      upload: S3FileCreateMultipart,
      service: Type.Literal(service),
      version: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
    },
    { title },
  );

export const FileCreate = Type.Union(
  [
    fileCreate("DownloadableFileCreate", "downloadable", Type.String({ minLength: 1, maxLength: 255 }), MAX_DOWNLOADABLE_SIZE),
    fileCreate("ProductMediaFileCreate", "product_media", ImageMimeType, 10 * 1024 * 1024),
    fileCreate("OrganizationAvatarFileCreate", "organization_avatar", ImageMimeType, 1024 * 1024),
  ],
  { title: "FileCreate" },
);
export type FileCreate = Static<typeof FileCreate>;

export const FileUploadCompleted = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 1024, description: "The upload's id, as opening it answered." }),
    path: Type.String({ minLength: 1, maxLength: 1024 }),
    parts: Type.Array(
      Type.Object(
        {
          number: Type.Integer({ minimum: 1, maximum: MAX_UPLOAD_PARTS }),
          checksum_etag: Type.String({ minLength: 1, maxLength: 128 }),
          checksum_sha256_base64: Nullable(Sha256Base64),
        },
        { title: "S3FileUploadCompletedPart" },
      ),
      { minItems: 1, maxItems: MAX_UPLOAD_PARTS },
    ),
  },
  { title: "FileUploadCompleted" },
);
export type FileUploadCompleted = Static<typeof FileUploadCompleted>;

export const FilePatch = Type.Object(
  {
    name: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
    version: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  },
  { title: "FilePatch" },
);
export type FilePatch = Static<typeof FilePatch>;

export const FileListQuery = Type.Object({
  organization_id: OneOrMany(Uuid4(), "Filter by organization ID."),
  ids: OneOrMany(Uuid4(), "Filter by file ID."),
  ...PaginationQuery,
});
export type FileListQuery = Static<typeof FileListQuery>;

export const DownloadableListQuery = Type.Object({
  benefit_id: OneOrMany(Uuid4(), "Filter by benefit ID."),
  ...PaginationQuery,
});
export type DownloadableListQuery = Static<typeof DownloadableListQuery>;

export const DownloadTokenParams = Type.Object({ token: Type.String({ maxLength: 512 }) });
