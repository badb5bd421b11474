import { type CORSRule, GetBucketCorsCommand, PutBucketCorsCommand, type S3Client } from "@aws-sdk/client-s3";

const METHODS = ["GET", "HEAD", "PUT"];

/**
 * Lets pages served from `origin` (the dashboard) PUT uploads to and read files from the bucket directly:
 * adds one CORS rule for that origin, keeping any rules the operator set. Returns why it could not, if so
 * (e.g. credentials without s3:PutBucketCORS), so the caller can say it instead of failing to start.
 */
export async function allowBrowserOrigin(
  client: S3Client,
  bucket: string,
  origin: string,
): Promise<string | undefined> {
  try {
    let rules: CORSRule[] = [];
    try {
      rules = (await client.send(new GetBucketCorsCommand({ Bucket: bucket }))).CORSRules ?? [];
    } catch (error) {
      if ((error as Error).name !== "NoSuchCORSConfiguration") throw error;
    }
    const covered = rules.some(
      (rule) =>
        rule.AllowedOrigins?.some((o) => o === origin || o === "*") &&
        METHODS.every((m) => rule.AllowedMethods?.includes(m)) &&
        rule.AllowedHeaders?.includes("*"),
    );
    if (covered) return undefined;
    const rule = { AllowedOrigins: [origin], AllowedMethods: METHODS, AllowedHeaders: ["*"], MaxAgeSeconds: 3600 };
    await client.send(new PutBucketCorsCommand({ Bucket: bucket, CORSConfiguration: { CORSRules: [...rules, rule] } }));
    return undefined;
  } catch (error) {
    return `the bucket's CORS rules could not be set for ${origin} (${(error as Error).message}); browsers cannot upload to the bucket or read its files until a rule allows ${METHODS.join(", ")} from that origin`;
  }
}
