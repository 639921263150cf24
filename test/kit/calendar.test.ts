import { afterEach, describe, expect, it } from "vitest";
import { addInterval } from "../../src/values/calendar.ts";

/** The period ends a subscription started at `start` goes through, anchored to the start's day. */
function periodEnds(start: string, unit: "day" | "week" | "month" | "year", count: number, cycles: number): string[] {
  const anchor = new Date(start);
  const ends: string[] = [];
  let end = anchor;
  for (let i = 0; i < cycles; i += 1) {
    end = addInterval(end, unit, count, anchor.getUTCDate());
    ends.push(end.toISOString());
  }
  return ends;
}

describe("period arithmetic (addInterval with an anchor day), in UTC", () => {
  const originalZone = process.env.TZ;
  afterEach(() => {
    process.env.TZ = originalZone;
  });

  it("anchors monthly periods to the start day: 31 January → 28 February → 31 March → 30 April", () => {
    expect(periodEnds("2026-01-31T10:15:00.000Z", "month", 1, 4)).toEqual([
      "2026-02-28T10:15:00.000Z",
      "2026-03-31T10:15:00.000Z",
      "2026-04-30T10:15:00.000Z",
      "2026-05-31T10:15:00.000Z",
    ]);
  });

  it("lands on 29 February in a leap year and comes back to the 31st after it", () => {
    expect(periodEnds("2028-01-31T00:00:00.000Z", "month", 1, 2)).toEqual(["2028-02-29T00:00:00.000Z", "2028-03-31T00:00:00.000Z"]);
    // Without the anchor the day would drift to the 29th for good.
    expect(addInterval(new Date("2028-02-29T00:00:00.000Z"), "month", 1).toISOString()).toBe("2028-03-29T00:00:00.000Z");
  });

  it("renews a yearly plan started on 29 February on 28 February, and on the 29th again in the next leap year", () => {
    expect(periodEnds("2028-02-29T12:00:00.000Z", "year", 1, 4)).toEqual([
      "2029-02-28T12:00:00.000Z",
      "2030-02-28T12:00:00.000Z",
      "2031-02-28T12:00:00.000Z",
      "2032-02-29T12:00:00.000Z",
    ]);
  });

  it("counts multi-month intervals from the anchor: every 3 months from 30 November", () => {
    expect(periodEnds("2026-11-30T08:00:00.000Z", "month", 3, 4)).toEqual([
      "2027-02-28T08:00:00.000Z",
      "2027-05-30T08:00:00.000Z",
      "2027-08-30T08:00:00.000Z",
      "2027-11-30T08:00:00.000Z",
    ]);
  });

  it("crosses a year end: 31 December monthly → 31 January → 28 February", () => {
    expect(periodEnds("2026-12-31T23:59:59.000Z", "month", 1, 2)).toEqual(["2027-01-31T23:59:59.000Z", "2027-02-28T23:59:59.000Z"]);
  });

  it("gives days and weeks a fixed length of 24 hours and 7 days", () => {
    expect(periodEnds("2026-02-27T06:00:00.000Z", "day", 1, 3)).toEqual([
      "2026-02-28T06:00:00.000Z",
      "2026-03-01T06:00:00.000Z",
      "2026-03-02T06:00:00.000Z",
    ]);
    expect(periodEnds("2026-12-28T06:00:00.000Z", "week", 2, 2)).toEqual(["2027-01-11T06:00:00.000Z", "2027-01-25T06:00:00.000Z"]);
  });

  it("is unmoved by the process time zone's daylight-saving changes (Europe/Berlin, America/New_York)", () => {
    // 2026-03-29 and 2026-10-25 are Berlin's changes; 2026-03-08 and 2026-11-01 New York's.
    const expected = [
      "2026-03-15T00:30:00.000Z",
      "2026-04-15T00:30:00.000Z",
      "2026-05-15T00:30:00.000Z",
      "2026-06-15T00:30:00.000Z",
      "2026-07-15T00:30:00.000Z",
      "2026-08-15T00:30:00.000Z",
      "2026-09-15T00:30:00.000Z",
      "2026-10-15T00:30:00.000Z",
      "2026-11-15T00:30:00.000Z",
    ];
    for (const zone of ["UTC", "Europe/Berlin", "America/New_York"]) {
      process.env.TZ = zone;
      expect(periodEnds("2026-02-15T00:30:00.000Z", "month", 1, 9), zone).toEqual(expected);
      expect(periodEnds("2026-03-07T12:00:00.000Z", "day", 1, 2), zone).toEqual(["2026-03-08T12:00:00.000Z", "2026-03-09T12:00:00.000Z"]);
    }
    // The zone is really applied: the same instant reads differently in local time.
    process.env.TZ = "Europe/Berlin";
    expect(new Date("2026-07-01T00:00:00.000Z").getHours()).toBe(2);
  });
});
