import { GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { assertSafeKey, type BlobStore, type StoredObject } from "./blob-store.ts";

export interface S3Options {
  bucket: string;
  region: string;
  endpoint?: string | undefined;
  forcePathStyle: boolean;
  accessKeyId?: string | undefined;
  secretAccessKey?: string | undefined;
}

/** S3 or any S3-compatible service; downloads are presigned GETs. */
export class S3BlobStore implements BlobStore {
  private readonly client: S3Client;

  constructor(private readonly options: S3Options) {
    this.client = new S3Client({
      region: options.region,
      endpoint: options.endpoint,
      forcePathStyle: options.forcePathStyle,
      credentials:
        options.accessKeyId && options.secretAccessKey
          ? { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey }
          : undefined,
    });
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
    return getSignedUrl(this.client, command, { expiresIn: options.expiresInSeconds });
  }

  destroy(): void {
    this.client.destroy();
  }
}

export const contentDisposition = (filename: string): string =>
  `attachment; filename="${filename.replace(/["\\\r\n]/g, "_")}"`;
