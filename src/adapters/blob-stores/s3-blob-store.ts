import { GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { assertSafeKey, type BlobStore, type StoredObject } from "./blob-store.ts";

export interface S3Options {
  bucket: string;
  region: string;
  endpoint?: string | undefined;
  /** Where the links' users reach the service, when that differs from `endpoint`. */
  publicEndpoint?: string | undefined;
  forcePathStyle: boolean;
  accessKeyId?: string | undefined;
  secretAccessKey?: string | undefined;
}

/** S3 or any S3-compatible service; downloads are presigned GETs. */
export class S3BlobStore implements BlobStore {
  private readonly options: S3Options;
  private readonly client: S3Client;
  /** Signs download links; it never sends a request. */
  private readonly signer: S3Client;

  constructor(options: S3Options) {
    this.options = options;
    const clientFor = (endpoint: string | undefined) =>
      new S3Client({
        region: options.region,
        endpoint,
        forcePathStyle: options.forcePathStyle,
        credentials:
          options.accessKeyId && options.secretAccessKey
            ? { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey }
            : undefined,
      });
    this.client = clientFor(options.endpoint);
    // A presigned URL's signature covers its host, so links are signed for the host their users
    // reach (a container network name such as `storage:9000` means nothing to a browser).
    this.signer = options.publicEndpoint ? clientFor(options.publicEndpoint) : this.client;
  }

  async put(key: string, body: Buffer, meta: StoredObject): Promise<void> {
    assertSafeKey(key);
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.options.bucket,
        Key: key,
        Body: body,
        ContentType: meta.contentType,
        CacheControl: meta.cacheControl,
        ContentDisposition: contentDisposition(meta.filename),
      }),
    );
  }

  async exists(key: string): Promise<boolean> {
    assertSafeKey(key);
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.options.bucket, Key: key }));
      return true;
    } catch (error) {
      if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return false;
      throw error;
    }
  }

  async downloadUrl(key: string, options: { filename: string; expiresInSeconds: number }): Promise<string> {
    assertSafeKey(key);
    const command = new GetObjectCommand({
      Bucket: this.options.bucket,
      Key: key,
      ResponseContentDisposition: contentDisposition(options.filename),
    });
    return getSignedUrl(this.signer, command, { expiresIn: options.expiresInSeconds });
  }

  destroy(): void {
    this.client.destroy();
    this.signer.destroy();
  }
}

export const contentDisposition = (filename: string): string => `attachment; filename="${filename.replace(/["\\\r\n]/g, "_")}"`;
